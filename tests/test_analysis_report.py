"""Issue 30 point 6: the report leads with the answer, its HTML twin and readable plots (pure: no MLflow)."""

from __future__ import annotations

import math

import pytest

from evalkit.analysis.compare import Settings, compare
from evalkit.analysis.html import for_mlflow, to_html
from evalkit.analysis.layout import Headline, by_family, family_of, headline, lower_is_better
from evalkit.analysis.report import markdown
from evalkit.analysis.synthetic import Condition, make_experiment, to_cell_data

NOISE = Condition("noise", perturb="noise_cafe", snr_db="15.0")
ACCENT = Condition("accent", voice="accent_french")
FAST = Settings(n_permutations=500, n_bootstrap=200)


@pytest.fixture(scope="module")
def analysis():
    effects = {("a1", "noise", "task_completion"): -0.4, ("a1", "noise", "user_wer"): 0.3}
    cells = make_experiment(["a1", "a2"], ["airline", "hr"], [NOISE, ACCENT], 12, 2, 2, effects, seed=3)
    return compare([to_cell_data(c) for c in cells], FAST)


def test_directions_and_families_come_from_the_metrics_own_metadata():
    assert lower_is_better("user_wer") and lower_is_better("turn_overhead") and not lower_is_better("task_completion")
    assert lower_is_better("latency_response_ms_p95")  # derived from response_latency's metadata
    assert not lower_is_better("task_completion_pass")
    assert family_of("task_completion") == family_of("success_db") == "Task success"
    assert family_of("user_wer") == "Hearing" and family_of("my_plugin_score") == "Other metrics"
    groups = by_family(["user_wer", "zeta", "turn_taking", "success_db", "task_completion", "eva_a"])
    assert [f for f, _ in groups] == ["Task success", "Hearing", "Latency and turn-taking", "Conversation quality",
                                      "Other metrics"]  # fmt: skip
    assert groups[0][1] == ["success_db", "task_completion"]


def test_verdicts_follow_direction_and_significance():
    worse_wer = Headline("m", "d", "c", "user_wer", 0.1, 0.3, 0.2, 0.1, 0.3, 0.01, True)
    better_tc = Headline("m", "d", "c", "task_completion", 0.5, 0.7, 0.2, 0.1, 0.3, 0.01, True)
    assert (worse_wer.verdict, worse_wer.arrow) == ("worse", "▲")
    assert better_tc.verdict == "better"
    assert Headline("m", "d", "c", "task_completion", 0.5, 0.4, -0.1, p_holm=0.3).verdict == "no significant change"
    assert Headline("m", "d", "c", "latency_response_ms_p95", 900, 1200, 300).verdict == "untested"


def test_the_report_leads_with_the_headline_then_families_in_order(analysis, tmp_path):
    lines = headline(analysis.rows, analysis.pass_rows)
    planted = [h for h in lines if (h.model, h.condition, h.metric) == ("a1", "noise_cafe@15.0dB", "task_completion")]
    assert [h.domain for h in planted] == ["pooled"]  # pooled rows stand for their domains on the one screen
    assert planted[0].verdict == "worse" and planted[0].delta < -0.2
    assert math.isclose(planted[0].perturbed - planted[0].clean, planted[0].delta, abs_tol=1e-9)
    wer = next(h for h in lines if (h.model, h.condition, h.metric) == ("a1", "noise_cafe@15.0dB", "user_wer"))
    assert wer.verdict == "worse" and wer.delta > 0  # a rise of WER is a degradation
    text = markdown(analysis, FAST, "synthetic", {}, ["forest_headline.png"])
    marks = ["## Headline", "🔴 worse", "forest_headline.png", "## How to read", "## Task success", "## Hearing",
             "## Gaps"]  # fmt: skip
    assert [text.index(m) for m in marks] == sorted(text.index(m) for m in marks)
    page = to_html(text, tmp_path)
    assert '<td class="worse">worse</td>' in page and "<h2>Task success</h2>" in page
    mlflow_text = for_mlflow(text, "abc123")
    assert "![forest_headline.png](get-artifact?path=forest_headline.png&run_uuid=abc123)" in mlflow_text


def test_plots_have_titles_labels_and_nothing_cut_off():
    """Every figure: a title, labelled axes, a sane size, and every text inside the canvas at the default size."""
    from matplotlib import pyplot as plt

    from evalkit.analysis.plots import figures

    cells = make_experiment(["a1"], ["airline", "hr"], [NOISE, ACCENT], 6, 2, 2, {}, seed=3)  # small: drawing is slow
    small = compare([to_cell_data(c) for c in cells], FAST)
    figs = figures(small.rows, small.pass_rows, ["task_completion", "user_wer"])
    assert {"forest_headline.png", "heatmap_all.png", "forest_task_success.png", "forest_hearing.png"} <= set(figs)
    for name, fig in figs.items():
        width, height = fig.get_size_inches() * fig.dpi
        assert 500 <= width <= 4000 and 250 <= height <= 6000, (name, width, height)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        canvas = fig.bbox
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                box = ax.yaxis.label.get_window_extent(renderer)
                assert box.x1 <= canvas.x1 + 1, (name, "colour bar label cut off")
                continue
            assert ax.get_title() or ax.get_title(loc="left"), name
            assert ax.get_xlabel() and (ax.get_ylabel() or ax.get_yticklabels()), name
            (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
            shown = [t.label1 for t in ax.xaxis.get_major_ticks() if x0 <= t.get_loc() <= x1]
            shown += [t.label1 for t in ax.yaxis.get_major_ticks() if y0 <= t.get_loc() <= y1]
            for text in [ax.title, ax._left_title, ax.xaxis.label, ax.yaxis.label, *shown]:
                if not text.get_text() or not text.get_visible():
                    continue
                box = text.get_window_extent(renderer)
                assert box.x0 >= -1 and box.x1 <= canvas.x1 + 1 and box.y0 >= -1 and box.y1 <= canvas.y1 + 1, (
                    name,
                    text.get_text(),
                )
        plt.close(fig)
