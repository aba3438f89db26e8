"""``python -m evalkit.domains.itsm.generate [OUT_DIR]``: rewrite the ITSM ``scenarios/*.json``."""

from evalkit.domains.itsm.generate import main

main()
