# Adds COUNT books without files to the calibre library at PATH, as `calibredb add --empty` adds one (a title, an
# author of 400, one in three in a series, a tag of 20), through calibre's own library API in one process:
# `calibredb add --empty` starts calibre once a book, 0.4 s each.
# Usage: calibre-debug -e Fixtures/calibre/generate-books.py PATH COUNT
import sys

from calibre.ebooks.metadata.book.base import Metadata
from calibre.library import db

path, count = sys.argv[1], int(sys.argv[2])
api = db(path).new_api
for i in range(count):
    mi = Metadata('Generated Book %05d' % i, ['Author %03d' % (i % 400)])
    if i % 3 == 0:
        mi.series = 'Series %02d' % (i % 50)
        mi.series_index = i // 50 + 1
    mi.tags = ['Tag %d' % (i % 20)]
    api.create_book_entry(mi)
