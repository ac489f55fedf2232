import pytest
from tests.browser import conftest as c
from tests.browser.test_mcts_views import MIDDLEGAME, step_game

@pytest.mark.parametrize("rate", [2, 4, 6, 8, 12, 16, 20, 30])
def test_scroll(server, page, rate, monkeypatch):
    monkeypatch.setattr(c, "STEP_TIMEOUT_MS", 15000)
    cdp = page.context.new_cdp_session(page)
    step_game(server, page, MIDDLEGAME, {}, "chess")
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    c.step_times(page, 6)
