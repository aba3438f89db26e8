"""``python -m evalkit.serve [--host H] [--port P] [overrides...]``: serve an evalkit agent over the Twilio Media
Streams protocol (the reference server, docs/architecture.md, decision 12), e.g.
``python -m evalkit.serve agent=cascade_local``.

The overrides compose the run config exactly as ``python -m evalkit`` does; only its ``agent`` is used. Prints the
ws:// URL to give a caller (``agent=twilio_ws agent.url=<it>``), serves many calls at once and shuts down cleanly
on SIGINT / SIGTERM (exit status 0). Port 0 picks a free port.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from evalkit.config.schema import ConfigError, validate_config

CONF_DIR = Path(__file__).resolve().parent.parent / "conf"
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def compose_agent(overrides: list[str]) -> object:
    """The validated agent config of the composed run config."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    raw = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(raw, dict)
    raw.pop("hydra", None)
    return validate_config(raw).agent


async def serve_agent(agent_config: object, host: str, port: int, silence_ms: float) -> int:
    from evalkit.wire.twilio_ws.server import ReferenceServer

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    server = ReferenceServer(agent_config.build, host, port, silence_ms)  # type: ignore[attr-defined]
    kind = getattr(agent_config, "kind", "?")

    def ready(url: str) -> None:
        print(f"evalkit.serve: agent {kind} on {url}", flush=True)

    await server.serve_until(stop, ready)
    print(f"evalkit.serve: stopped after {server.calls} call(s)", flush=True)
    return 0


def option_problem(port: int, silence_ms: float) -> str | None:
    """A command-line value the server cannot start with, as one line (before any model loads)."""
    if not 0 <= port <= 65535:
        return f"--port must be 0-65535 (0: a free port), got {port}"
    if not silence_ms > 0:
        return f"--take-turn-after-silence-ms must be positive, got {silence_ms:g}"
    return None


SERVE_EXAMPLES = """\
examples:
  python -m evalkit.serve agent=cascade_local                    the reference agent on ws://127.0.0.1:8765
  python -m evalkit.serve --host 0.0.0.0 --port 9000 agent=cascade_local   reachable from other hosts
  python -m evalkit agent=twilio_ws agent.url=ws://127.0.0.1:8765   then run a cell against it (docs/agents.md)

exit status: 0 stopped by SIGINT/SIGTERM, 1 could not listen, 2 bad input (one line on stderr).
"""


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0 stopped by SIGINT/SIGTERM, 2 bad input (an option, an override, a wire agent), 1 the server
    could not listen (the port is taken, the host is not this machine's)."""
    from evalkit.cli.entry import input_error_line, is_input_error, problem_lines

    parser = argparse.ArgumentParser(
        prog="python -m evalkit.serve",
        description=__doc__.split("\n\n")[0],
        epilog=SERVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    parser.add_argument("--take-turn-after-silence-ms", type=float, default=700.0, dest="silence_ms",
                        help="caller silence after which the agent answers (default 700)")  # fmt: skip
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the agent group, e.g. agent=cascade_local")
    args = parser.parse_args(argv)
    problem = option_problem(args.port, args.silence_ms)
    if problem:
        print(f"evalkit.serve: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        agent_config = compose_agent(args.overrides)
    except ConfigError as exc:
        for line in problem_lines(exc):  # one stderr line per problem
            print(f"config error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:
        if not is_input_error(exc):  # an unknown option (agent=nope), a bad override: Hydra's composition errors
            raise
        print(f"config error: {input_error_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if getattr(agent_config, "realtime", False) or getattr(agent_config, "kind", "") == "twilio_ws":
        print("config error: evalkit.serve serves in-process agents, not a wire agent", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return asyncio.run(serve_agent(agent_config, args.host, args.port, args.silence_ms))
    except (FileNotFoundError, ValueError) as exc:  # the agent is built before the server listens (its models
        # load then): a voice or model that is not installed is bad input, in one line
        print(f"evalkit.serve: the agent cannot be built: {' '.join(str(exc).split())[:300]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # bind: address in use, not this host's address, a port below 1024 without the right
        print(f"evalkit.serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    raise SystemExit(main())
