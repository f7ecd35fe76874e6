#!/usr/bin/env python3
"""Generate a tiny comic library: 2 CBZ files, 3 JPEG pages each, with ComicInfo.xml."""
import io
import sys
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw

COMICS = (
    ("Harness Series", 1, "First Issue", (200, 40, 40)),
    ("Harness Series", 2, "Second Issue", (40, 40, 200)),
)
PAGES = 3

COMICINFO = """<?xml version="1.0" encoding="utf-8"?>
<ComicInfo xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <Title>{title}</Title>
  <Series>{series}</Series>
  <Number>{number}</Number>
  <Volume>2024</Volume>
  <Year>2024</Year>
  <Publisher>Harness Press</Publisher>
  <PageCount>{pages}</PageCount>
  <LanguageISO>en</LanguageISO>
</ComicInfo>
"""


def page_jpeg(color, label) -> bytes:
    img = Image.new("RGB", (320, 480), color)
    ImageDraw.Draw(img).text((20, 20), label, fill=(255, 255, 255))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=80)
    return buf.getvalue()


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for series, number, title, color in COMICS:
        path = out / f"harness_series_{number:03d}.cbz"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
            for i in range(PAGES):
                zf.writestr(f"page{i + 1:03d}.jpg", page_jpeg(color, f"{title} p{i + 1}"))
            zf.writestr(
                "ComicInfo.xml",
                COMICINFO.format(title=title, series=series, number=number, pages=PAGES),
            )
        print(path)


if __name__ == "__main__":
    main(sys.argv[1])
