"""The scripted caller (``simulator=scripted``): evalkit's offline, deterministic demo caller, an ordinary plug-in of
the simulator registry.

Not the harness: the call loop, channel, scoring and tracking never import it (an import contract in
pyproject.toml). ``config`` registers the kind; ``caller`` is the simulator, with what it understands of an agent
(``understanding``, ``listening``, ``read_back``) and its answers from a record's fields (``field_answers``).
"""
