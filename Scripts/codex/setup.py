#!/usr/bin/env python3
"""
Prepare a Codex config dir BEFORE the server starts (run with the codex venv python
and the same CODEX_CONFIG_DIR env as the server):
  * migrate the DB and create the default rows (same code codex runs at startup)
  * disable telemetry (AdminFlag ST), auto update (AU), optionally anonymous access (NU)
  * pre-seed the "latest version" timestamp so Codex never asks PyPI for it
  * create the reader user (non-admin) + its DRF token
  * register the comics dir as a Library (+ root Folder, like the admin API does);
    last_poll is NULL so the watchdog poller imports it right after startup.
Prints KEY=VALUE lines.
"""
import os
import sys
from pathlib import Path

username, password, comics_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3]).resolve()
non_users = os.environ.get("HARNESS_NON_USERS", "0") == "1"

# Optional migrated-DB template to skip the ~15 s of migrations on a fresh dir.
template = os.environ.get("HARNESS_DB_TEMPLATE")
db_path = Path(os.environ["CODEX_CONFIG_DIR"]) / "codex.sqlite3"
if template and Path(template).is_file() and not db_path.exists():
    import shutil

    db_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, db_path)

import codex  # noqa: E402,F401  (django.setup() with codex.settings)
from django.contrib.auth.models import User  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from codex.choices.admin import AdminFlagChoices  # noqa: E402
from codex.models import AdminFlag, Folder, Library, Timestamp  # noqa: E402
from codex.startup import codex_init  # noqa: E402
from codex.version import VERSION  # noqa: E402

if not codex_init():
    sys.exit("codex_init failed")

if template and not Path(template).is_file():
    import sqlite3

    Path(template).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(template + ".tmp")
    with sqlite3.connect(db_path) as src, sqlite3.connect(tmp) as dst:
        src.backup(dst)
    dst.close()
    tmp.replace(template)

flags = {
    AdminFlagChoices.SEND_TELEMETRY.value: False,
    AdminFlagChoices.AUTO_UPDATE.value: False,
    AdminFlagChoices.NON_USERS.value: non_users,
    AdminFlagChoices.REGISTRATION.value: False,
}
for key, on in flags.items():
    AdminFlag.objects.filter(key=key).update(on=on)

# Latest-version cache: a non-empty version younger than 1 day => no PyPI fetch.
ts = Timestamp.objects.get(key=Timestamp.Choices.CODEX_VERSION.value)
ts.version = VERSION
ts.save()  # bumps updated_at

user, _ = User.objects.get_or_create(username=username)
user.set_password(password)
user.is_active = True
user.is_staff = False
user.is_superuser = False
user.save()
token, _ = Token.objects.get_or_create(user=user)

library, created = Library.objects.get_or_create(path=str(comics_dir))
if created:
    Folder.objects.get_or_create(
        library=library, path=str(comics_dir), defaults={"name": comics_dir.name}
    )

admin_token, _ = Token.objects.get_or_create(user=User.objects.get(username="admin"))
print(f"USER_TOKEN={token.key}")
print(f"ADMIN_TOKEN={admin_token.key}")
print(f"LIBRARY_PK={library.pk}")
