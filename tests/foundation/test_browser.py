"""A new user in a real browser: sign up, create a novel, find it in the list, open it.

Drives Debian's Chromium (never a downloaded one) through Playwright against
pytest-django's live server. Screenshots land in var/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services import REQUIRE

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser


@pytest.fixture
def page(live_server, monkeypatch) -> Iterator[object]:  # type: ignore[no-untyped-def]
    if not CHROMIUM.exists():
        reason = f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)"
        if REQUIRE:
            pytest.fail(f"required service missing: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(base_url=live_server.url, viewport={"width": 1100, "height": 800})
            context.set_default_timeout(15000)
            yield context.new_page()
        finally:
            browser.close()


def test_new_user_signs_up_creates_a_novel_and_finds_it(page):
    from novels.models import Membership, Novel, Role

    page.goto("/accounts/signup/")
    page.screenshot(path=str(SCREENSHOTS / "01-signup.png"), full_page=True)
    page.get_by_label("Username").fill("mara")
    page.locator("#id_password1").fill("lamp-and-letter-9")
    page.get_by_label("Password confirmation").fill("lamp-and-letter-9")
    page.get_by_role("button", name="Sign up").click()

    page.wait_for_url("**/novels/")
    assert page.get_by_text("No novels yet").is_visible()
    page.screenshot(path=str(SCREENSHOTS / "02-empty-list.png"), full_page=True)
    page.get_by_role("link", name="Start your first novel").click()

    page.wait_for_url("**/novels/new/")
    page.get_by_label("Title").fill("The Lighthouse Keeper")
    page.get_by_label("Genre").fill("Mystery")
    page.get_by_label("Premise").fill("A keeper finds a letter in a bottle, addressed to himself and dated next winter.")
    page.screenshot(path=str(SCREENSHOTS / "03-create.png"), full_page=True)
    page.get_by_role("button", name="Create novel").click()

    page.wait_for_url("**/novels/*/")
    assert page.get_by_role("heading", name="The Lighthouse Keeper").is_visible()
    page.screenshot(path=str(SCREENSHOTS / "04-detail.png"), full_page=True)

    page.goto("/novels/")
    assert page.get_by_role("link", name="The Lighthouse Keeper").is_visible()
    page.screenshot(path=str(SCREENSHOTS / "05-list.png"), full_page=True)
    page.get_by_role("link", name="The Lighthouse Keeper").click()
    page.wait_for_url("**/novels/*/")
    page.goto(page.url.split("#")[0] + "settings/")
    assert page.get_by_role("heading", name="Members", exact=True).is_visible()
    page.screenshot(path=str(SCREENSHOTS / "06-settings.png"), full_page=True)

    novel = Novel.objects.get(title="The Lighthouse Keeper")
    assert (novel.language, novel.genre) == ("en", "Mystery")
    assert list(Membership.objects.filter(novel=novel).values_list("user__username", "role")) == [("mara", Role.OWNER)]


def test_a_too_long_premise_keeps_the_text_in_the_browser(page):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("ada", password="lamp-and-letter-9")
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("ada")
    page.locator("#id_password").fill("lamp-and-letter-9")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/novels/")
    page.goto("/novels/new/")
    premise = "The keeper climbed the stairs again. " * 1000
    page.get_by_label("Title").fill("Long")
    page.get_by_label("Premise").fill(premise)
    page.get_by_role("button", name="Create novel").click()
    page.wait_for_load_state()
    assert page.get_by_text("limited to 20,000 characters").is_visible()
    assert page.get_by_label("Premise").input_value() == premise  # all of it, nothing cut
    page.screenshot(path=str(SCREENSHOTS / "07-premise-too-long.png"))
