"""``python -m evalkit.domains.airline.generate``: rewrite the airline ``scenarios/*.json``."""

from evalkit.domains.airline.generate import main

main()
