"""The reference agent (``agent=cascade_local``): evalkit's own demo agent, an ordinary plug-in of the agent registry.

Not the harness: the call loop, channel, scoring and tracking never import it (an import contract in
pyproject.toml). Its one dialogue engine (every domain's declared workflows) and its hearing rules are one agent's
choices, measured like any agent under test.
"""
