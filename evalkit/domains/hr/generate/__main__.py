"""``python -m evalkit.domains.hr.generate [out_dir]``: rewrite the HR ``scenarios/*.json``."""

from evalkit.domains.hr.generate import main

main()
