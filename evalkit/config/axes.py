"""The axes of a cell, declared once.

A cell is one point of the grid (domain, agent, simulator, voice, persona, perturb, seed, trials, scenarios).
Each :class:`Axis` says which config group selects it, whether it is a perturbation axis, its clean value, how to
recognise a perturbed option, and the MLflow params it produces (with the values a clean cell logs). Everything
that used to repeat these facts derives from this registry:

- the sweeper's twin rule on override strings (``evalkit.cli.sweeper.twin_overrides`` / ``is_perturbed``);
- the twin of a composed config (``evalkit.config.schema.twin_config``);
- the per-axis MLflow params of a cell run (``axis_params``, used by ``evalkit.cell.plan``);
- the analysis: pairing older runs by params (``clean_params``) and the axes that name a condition
  (``condition_axes``, the default of ``conf/analyze.yaml``'s ``condition_axes: null``).

Adding a perturbation axis (IHBench's ``interrupt``, MM-τ-p²'s ``modality``) is one :func:`register_axis` call or
one entry in ``_BUILTIN``. Functions read the registry when called, never at import, so a registered axis is seen
everywhere at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalkit.config.schema import RunConfig


def _never(option: str) -> bool:
    return False


@dataclass(frozen=True)
class Axis:
    """One axis of the grid.

    ``clean_option`` is the conf/ option the clean twin selects; for a perturbation axis whose group is added with
    ``+group=X`` (``perturb``, ``interrupt``) it is None: the twin has no such group at all, and every override of
    the group is dropped from the twin's overrides.
    """

    name: str
    group: str | None  # the conf/<group>/ folder that selects it; None: a plain config value (seed, trials)
    params: Callable[[RunConfig], dict[str, str]]  # the MLflow params this axis logs for a cell
    param_names: tuple[str, ...]  # the keys ``params`` returns, in order
    perturbation: bool = False
    clean_option: str | None = None
    perturbed: Callable[[str], bool] = _never  # is this option name a perturbation of the axis?
    clean_params: Mapping[str, str] = field(default_factory=dict)  # what a clean cell logs for the axis
    # The clean option of one perturbed option, when it depends on it (None: always ``clean_option``), and which
    # ``group.key=...`` overrides of a perturbed option its twin keeps (default: none, they tune the replaced option).
    clean_of: Callable[[str], str] | None = None
    twin_keeps: Callable[[str, str], bool] | None = None

    def clean_for(self, option: str) -> str | None:
        """The clean option the twin of a cell selecting (perturbed) ``option`` selects."""
        return self.clean_of(option) if self.clean_of is not None else self.clean_option

    def keeps(self, option: str, key: str) -> bool:
        """Whether the twin of ``option`` keeps the override ``group.<key>=...`` (``key`` without the group)."""
        return self.twin_keeps is not None and self.twin_keeps(option, key)

    @property
    def removable(self) -> bool:
        """A perturbation group that is absent in the clean condition (added with ``+group=X``)."""
        return self.perturbation and self.clean_option is None

    def option(self, config: Any) -> str | None:
        """The option name a composed config selects on this axis (None: the group is absent)."""
        node = getattr(config, self.group or self.name, None)
        return getattr(node, "name", None) if node is not None else None

    def is_perturbed(self, option: str | None) -> bool:
        """Whether a selected option (None: group absent) is a perturbation of this axis."""
        return self.perturbation and option is not None and self.perturbed(option)


def _group_name(group: str) -> Callable[[RunConfig], dict[str, str]]:
    def params(config: RunConfig) -> dict[str, str]:
        return {group: getattr(config, group).name}

    return params


def _perturb_params(config: RunConfig) -> dict[str, str]:
    # The condition name ("clean" when absent) and its SNR knob: the two filters the MLflow UI needs per condition.
    snr = config.perturb.snr_db if config.perturb else None
    return {"perturb": config.condition, "snr_db": "none" if snr is None else str(snr)}


def _agent_params(config: RunConfig) -> dict[str, str]:
    return {"agent": config.agent.name, "architecture": config.agent.architecture}


REMOTE_ACCENT = "_accent_"  # conf/voice/<engine>_accent_<x>.yaml: an accent of a remote engine (<engine>.yaml)
# What makes a remote accent option an accent: the rest of it (endpoint, model, format...) is the engine's, shared by
# its clean twin. Kept in step with ``evalkit.config.schema.twin_config`` (same keys).
ACCENT_KEYS = ("name", "accent", "speakers")


def remote_accent(option: str) -> bool:
    """<engine>_accent_*.yaml: an accent of a (remote) engine whose neutral option is <engine>.yaml."""
    return not option.startswith("accent_") and REMOTE_ACCENT in option and not option.startswith(REMOTE_ACCENT)


def _is_accent(option: str) -> bool:
    """conf/voice/accent_*.yaml (eSpeak, EVA-Bench App. G) or <engine>_accent_*.yaml (a remote engine's accent)."""
    return option.startswith("accent_") or remote_accent(option)


def _voice_twin(option: str) -> str:
    """An eSpeak accent's twin is the neutral eSpeak voice; a remote engine's accent's is that engine's own neutral
    option (the same server and model, another voice), never eSpeak: the delta then measures the accent only."""
    return "neutral" if option.startswith("accent_") else option.split(REMOTE_ACCENT, 1)[0]


def _voice_twin_keeps(option: str, key: str) -> bool:
    """A remote accent's twin keeps the overrides of its engine (``voice.base_url=...``), not of its accent."""
    return remote_accent(option) and key.split(".", 1)[0] not in ACCENT_KEYS


def _value(key: str) -> Callable[[RunConfig], dict[str, str]]:
    def params(config: RunConfig) -> dict[str, str]:
        return {key: str(getattr(config, key))}

    return params


def _scenario_params(config: RunConfig) -> dict[str, str]:
    return {"scenarios": "all" if not config.domain.scenarios else ",".join(config.domain.scenarios)}


def _plain(name: str, params: Callable[[RunConfig], dict[str, str]] | None = None) -> Axis:
    group = name if params is None else None
    return Axis(name, group, params or _group_name(name), (name,))


# Order = the order of the MLflow params and of a condition's label (voice before persona: "accent_french+noise").
_BUILTIN: tuple[Axis, ...] = (
    _plain("domain"),
    # the agent and what it is (cascade / hybrid / s2s, declared by its config): the architecture axis of the grid
    Axis("agent", "agent", _agent_params, ("agent", "architecture")),
    _plain("simulator"),
    Axis(
        "voice",
        "voice",
        _group_name("voice"),
        ("voice",),
        perturbation=True,
        clean_option="piper",  # the default voice; an eSpeak accent's twin is eSpeak's neutral voice (clean_of)
        perturbed=_is_accent,  # conf/voice/accent_*.yaml (EVA-Bench App. G), or <engine>_accent_*.yaml
        clean_params={"voice": "piper"},
        clean_of=_voice_twin,
        twin_keeps=_voice_twin_keeps,
    ),
    Axis(
        "persona",
        "persona",
        _group_name("persona"),
        ("persona",),
        perturbation=True,
        clean_option="default",
        perturbed=lambda option: option != "default",  # any behavioural persona (EVA-Bench App. G.1)
        clean_params={"persona": "default"},
    ),
    Axis(
        "perturb",
        "perturb",
        _perturb_params,
        ("perturb", "snr_db"),
        perturbation=True,
        clean_option=None,
        perturbed=lambda option: option != "clean",  # `+perturb=clean` composes to no perturb group
        clean_params={"perturb": "clean", "snr_db": "none"},
    ),
    Axis(
        "modality",
        "modality",
        _group_name("modality"),
        ("modality",),
        perturbation=True,
        clean_option="voice",
        perturbed=lambda option: option == "text",  # MM-tau-p2: the text condition against its voice twin
        clean_params={"modality": "voice"},
    ),
    Axis(
        "interrupt",
        "interrupt",
        lambda config: {"interrupt": config.interrupt.name if config.interrupt is not None else "none"},
        ("interrupt",),
        perturbation=True,
        clean_option=None,  # added with +interrupt=<type>; the clean twin has no interruptions
        perturbed=lambda option: option != "none",
        clean_params={"interrupt": "none"},
    ),
    Axis(
        "behavior",
        "behavior",
        lambda config: {"behavior": config.behavior.name if config.behavior is not None else "none"},
        ("behavior",),
        perturbation=True,
        clean_option=None,  # added with +behavior=<type>; the clean twin's caller has no backchannels, tics...
        perturbed=lambda option: option != "none",
        clean_params={"behavior": "none"},
    ),
    _plain("trials", _value("trials")),
    _plain("seed", _value("seed")),
    _plain("scenarios", _scenario_params),
)

_REGISTRY: dict[str, Axis] = {axis.name: axis for axis in _BUILTIN}


def register_axis(axis: Axis) -> Axis:
    """Add an axis (after the built-in ones). A second axis of one name is an error naming it."""
    if axis.name in _REGISTRY:
        raise ValueError(f"axis {axis.name!r} is already declared")
    _REGISTRY[axis.name] = axis
    return axis


def unregister_axis(name: str) -> None:
    _REGISTRY.pop(name)


@contextmanager
def registered(axis: Axis) -> Iterator[Axis]:
    """An axis declared for the duration of a block (tests, plug-ins tried out interactively)."""
    register_axis(axis)
    try:
        yield axis
    finally:
        unregister_axis(axis.name)


def all_axes() -> tuple[Axis, ...]:
    return tuple(_REGISTRY.values())


def axis(name: str) -> Axis:
    return _REGISTRY[name]


def perturbation_axes() -> tuple[Axis, ...]:
    return tuple(a for a in _REGISTRY.values() if a.perturbation)


def param_names() -> tuple[str, ...]:
    """Every per-axis MLflow param, in declaration order (the analysis matches older runs on these)."""
    return tuple(name for a in _REGISTRY.values() for name in a.param_names)


def condition_axes() -> tuple[str, ...]:
    """The params whose difference from the clean twin names a condition: those of the perturbation axes."""
    return tuple(name for a in perturbation_axes() for name in a.param_names)


def axis_params(config: RunConfig) -> dict[str, str]:
    """Short per-axis params so the MLflow UI's compare view and search_runs filter per axis."""
    params: dict[str, str] = {}
    for a in _REGISTRY.values():
        params.update(a.params(config))
    return params


def twin_choices(choices: Mapping[str, str | None]) -> dict[str, str | None]:
    """The groups the clean twin selects differently: group -> clean option (None: no such group).

    ``choices`` maps a group to its selected option (None or missing: not selected). A removable group that is
    selected goes away; an option recognised as perturbed becomes the axis's clean option; the rest is kept.
    """
    swapped: dict[str, str | None] = {}
    for a in perturbation_axes():
        group = a.group or a.name
        if group not in choices:
            continue
        option = choices[group]
        if a.removable and option is not None:
            swapped[group] = None
        elif not a.removable and a.is_perturbed(option):
            swapped[group] = a.clean_for(option)  # type: ignore[arg-type]  # is_perturbed: option is not None
    return swapped


def clean_signature(params: Mapping[str, str]) -> dict[str, str]:
    """The params the clean twin of a cell with these params logs (for runs without a ``twin_key`` tag)."""
    twin = dict(params)
    for a in perturbation_axes():
        option = params.get(a.param_names[0])
        if a.removable or a.is_perturbed(option):
            twin.update(a.clean_params)
            if a.clean_of is not None and option is not None:  # an option-dependent twin logs its own option
                twin[a.param_names[0]] = a.clean_of(option)
    return twin
