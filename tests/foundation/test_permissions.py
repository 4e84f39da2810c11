"""Every URL of the project, walked from the URL resolver, for every kind of visitor.

A pattern with a `novel_id` kwarg is a novel URL and must go through
`novels.permissions.novel_access`: a stranger gets 404, an anonymous visitor 404
or the login page, a viewer 403 on writes, an editor 403 only where the owner is
needed. Any other pattern must be named in PUBLIC_OR_PER_USER below.

Adding a novel URL usually needs nothing here. It needs one line when:
- the URL has a kwarg other than novel_id: add a factory to KWARG_FACTORIES;
- a method needs a role other than the default (GET: viewer, POST: editor):
  add it to REQUIRED_ROLE;
- a POST needs data to get past form validation: add it to POST_DATA (optional;
  it makes the "viewer's POST changes nothing" check bite harder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpResponseBase
from django.shortcuts import resolve_url
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from generation.models import GenerationJob, JobKind, JobStatus, ReviewFinding
from memory.models import ChapterSummary, Character, CharacterState, Fact, Passage, Thread
from novels.models import BlueprintCard, Chapter, ChapterRevision, Membership, Novel, Role

# --- what the walk knows ---------------------------------------------------------------------------

# URLs that are not about one novel. Anything else without novel_id fails the walk.
PUBLIC_OR_PER_USER = {"home", "healthz", "login", "logout", "signup", "novels:list", "novels:create"}
PUBLIC_PREFIXES = ("admin/",)  # Django's admin guards itself (staff only).

# The lowest role each method needs, where it differs from DEFAULT_ROLE.
DEFAULT_ROLE = {"GET": Role.VIEWER, "POST": Role.EDITOR}
REQUIRED_ROLE: dict[str, dict[str, Role]] = {
    "novels:settings": {"POST": Role.OWNER},
    "novels:member_set": {"POST": Role.OWNER},
    "novels:member_remove": {"POST": Role.OWNER},
    "novels:delete": {"POST": Role.OWNER},
}

# Valid POST bodies, so a missing role check would really write (and the walk would see it).
POST_DATA: dict[str, Callable[[Novel], dict[str, object]]] = {
    "novels:settings": lambda n: {"title": "Renamed by the walk", "genre": "", "premise": "p", "language": "en",
                                  "target_chapters": 12, "target_chapter_length": 3000, "memory_budget": 6000},
    "novels:member_set": lambda n: {"username": "walk-newcomer", "role": Role.EDITOR},
}


def _user(username: str):  # type: ignore[no-untyped-def]
    return get_user_model().objects.get_or_create(username=username)[0]


def _chapter(novel: Novel) -> Chapter:
    return Chapter.objects.get_or_create(novel=novel, number=1, defaults={"title": "One", "text": "The lamp went out."})[0]


def _job(novel: Novel) -> GenerationJob:
    return GenerationJob.objects.create(novel=novel, kind=JobKind.PROBE, step="walk", status=JobStatus.SUCCEEDED)


# kwarg name -> a function making a real object of the given novel and returning the kwarg's value.
# One line per kwarg; the walk fails and points here when a URL uses a kwarg missing from this table.
KWARG_FACTORIES: dict[str, Callable[[Novel], object]] = {
    "novel_id": lambda n: n.pk,
    "number": lambda n: _chapter(n).number,
    "chapter_number": lambda n: _chapter(n).number,
    "card_number": lambda n: BlueprintCard.objects.create(
        novel=n, number=1, window_start=1, title="One", position="start", core_function="hook",
        suspense_density=3, cognitive_twist=2, brief="b").number,
    "revision_id": lambda n: ChapterRevision.objects.create(chapter=_chapter(n), text="t", source="manual").pk,
    "job_id": lambda n: _job(n).pk,
    "finding_id": lambda n: ReviewFinding.objects.create(job=_job(n), chapter=_chapter(n), dimension="pacing",
                                                         severity="minor").pk,
    "membership_id": lambda n: Membership.objects.create(novel=n, user=_user(f"walk-member-{n.pk}"), role=Role.VIEWER).pk,
    "character_id": lambda n: Character.objects.create(novel=n, name="Mara").pk,
    "thread_id": lambda n: Thread.objects.create(novel=n, number=1, summary="Who wrote the letter?").pk,
    "fact_id": lambda n: Fact.objects.create(novel=n, text="The lamp is red.").pk,
    "passage_id": lambda n: Passage.objects.create(novel=n, chapter=1, ordinal=0, text="The lamp went out.").pk,
    "summary_id": lambda n: ChapterSummary.objects.create(novel=n, chapter=1, summary="s", skeleton="s").pk,
    "part": lambda n: "core_seed",
    "chapter": lambda n: ChapterSummary.objects.get_or_create(
        novel=n, chapter=1, defaults={"summary": "s", "skeleton": "s"})[0].chapter,
    "state_id": lambda n: CharacterState.objects.create(
        novel=n, character=Character.objects.get_or_create(novel=n, name="Walk-state")[0], chapter=0).pk,
}


# --- the walk ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    route: str
    name: str | None
    kwargs: tuple[str, ...]
    view: str

    @property
    def is_novel_url(self) -> bool:
        return "novel_id" in self.kwargs

    def needs(self, method: str) -> Role:
        return REQUIRED_ROLE.get(self.name or "", {}).get(method, DEFAULT_ROLE[method])


def _walk(resolver: URLResolver, prefix: str = "", namespace: str = "", kwargs: tuple[str, ...] = ()) -> Iterator[Route]:
    for entry in resolver.url_patterns:
        here = tuple(entry.pattern.regex.groupindex)
        if isinstance(entry, URLResolver):
            ns = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _walk(entry, prefix + str(entry.pattern), ns, kwargs + here)
        elif isinstance(entry, URLPattern):
            view = f"{entry.lookup_str}"
            yield Route(prefix + str(entry.pattern), f"{namespace}{entry.name}" if entry.name else None, kwargs + here, view)


def all_routes() -> list[Route]:
    return list(_walk(get_resolver()))


def novel_routes() -> list[Route]:
    return [r for r in all_routes() if r.is_novel_url]


class CannotWalk(Exception):
    """A novel URL the walk cannot build; reported as a failure, and the walk goes on with the others."""


@dataclass
class World:
    """The members fixture's novel, objects of it for every URL kwarg, and a second novel nobody here belongs to."""

    members: object
    values: dict[str, object] = field(default_factory=dict)

    @property
    def novel(self) -> Novel:
        return self.members.novel  # type: ignore[attr-defined]

    def kwargs_for(self, route: Route, novel: Novel | None = None) -> dict[str, object]:
        novel = novel or self.novel
        unknown = [k for k in route.kwargs if k not in KWARG_FACTORIES]
        if unknown:
            raise CannotWalk(
                f"URL {route.route!r} ({route.name}) takes {unknown}: add a factory for each to KWARG_FACTORIES "
                f"in {__file__} (kwarg name -> lambda novel: value of a real object of that novel)."
            )
        out: dict[str, object] = {}
        for name in route.kwargs:
            key = f"{novel.pk}:{name}"
            if key not in self.values:
                self.values[key] = KWARG_FACTORIES[name](novel)
            out[name] = self.values[key]
        return out

    def url(self, route: Route, **overrides: object) -> str:
        if route.name is None:
            raise CannotWalk(f"novel URL {route.route!r} has no name; give it one so the permission walk can reverse it.")
        return reverse(route.name, kwargs={**self.kwargs_for(route), **overrides})

    def post_data(self, route: Route) -> dict[str, object]:
        make = POST_DATA.get(route.name or "")
        if make is None:
            return {}
        _user("walk-newcomer")
        return make(self.novel)


    def urls(self, failures: list[str]) -> Iterator[tuple[Route, str]]:
        """Every novel route with a URL built from real objects; routes it cannot build go into failures."""
        for route in novel_routes():
            try:
                yield route, self.url(route)
            except CannotWalk as exc:
                failures.append(str(exc))


def _client(user=None) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _request(client: Client, method: str, url: str, data: dict[str, object] | None = None) -> HttpResponseBase:
    """One request whose writes are rolled back, so every request sees the same novel (even after 'delete')."""
    with transaction.atomic():
        response = client.get(url) if method == "GET" else client.post(url, data or {})
        transaction.set_rollback(True)
    return response


def _fingerprint() -> list[object]:
    """Row counts of every table but sessions, plus the novel and membership rows themselves."""
    counts = [(m._meta.label, m._default_manager.count()) for m in apps.get_models() if m._meta.label != "sessions.Session"]
    return [counts, list(Novel.objects.order_by("pk").values()), list(Membership.objects.order_by("pk").values())]


def _viewer_post_unchanged(client: Client, url: str, data: dict[str, object]) -> tuple[int, bool]:
    before = _fingerprint()
    with transaction.atomic():
        response = client.post(url, data)
        after = _fingerprint()
        transaction.set_rollback(True)
    return response.status_code, before == after


@pytest.fixture
def world(members) -> World:  # type: ignore[no-untyped-def]
    return World(members)


def _owner_status(world: World, route: Route, method: str) -> int:
    return _request(_client(world.members.owner), method, world.url(route), world.post_data(route)).status_code  # type: ignore[attr-defined]


def _method_refused_for_everyone(world: World, route: Route, method: str, status: int) -> bool:
    """405 is only fine when it does not depend on who asks (e.g. GET on a POST-only view)."""
    return status == 405 and _owner_status(world, route, method) == 405


def _report(failures: list[str], what: str) -> None:
    assert not failures, f"{what}:\n  " + "\n  ".join(failures)


# --- the tests ---------------------------------------------------------------------------------------


def test_walk_finds_the_novel_urls():
    names = {r.name for r in novel_routes()}
    assert {"novels:detail", "novels:settings", "novels:member_set", "novels:member_remove", "novels:delete"} <= names


def test_every_url_without_novel_id_is_allowlisted():
    outside = [
        f"{r.route!r} (name={r.name}, view={r.view})"
        for r in all_routes()
        if not r.is_novel_url and r.name not in PUBLIC_OR_PER_USER and not r.route.startswith(PUBLIC_PREFIXES)
    ]
    _report(outside, "URLs that are neither novel URLs (no novel_id kwarg) nor in PUBLIC_OR_PER_USER "
                     f"in {__file__}; a novel URL must take novel_id and call novels.permissions.novel_access, "
                     "a public or per-user URL must be added to the allowlist")


def test_every_novel_url_kwarg_has_a_factory():
    missing = sorted({f"{k} (in {r.route!r})" for r in novel_routes() for k in r.kwargs if k not in KWARG_FACTORIES})
    _report(missing, f"URL kwargs without a factory in KWARG_FACTORIES ({__file__}); add one line each")


def test_per_user_urls_send_anonymous_visitors_to_login(client):
    login = resolve_url("login")
    for name in ("novels:list", "novels:create"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and response["Location"].startswith(login), name


def test_stranger_gets_404_on_every_novel_url(world):
    client = _client(world.members.stranger)
    failures: list[str] = []
    for route, url in world.urls(failures):
        for method in ("GET", "POST"):
            status = _request(client, method, url, world.post_data(route)).status_code
            if status != 404 and not _method_refused_for_everyone(world, route, method, status):
                failures.append(f"{method} {url} ({route.name}) -> {status}")
    _report(failures, "novel URLs that did not answer a stranger with 404 (does the view call novel_access?)")


def test_anonymous_gets_404_or_login_on_every_novel_url(world):
    client = _client()
    login = resolve_url("login")
    failures: list[str] = []
    for route, url in world.urls(failures):
        for method in ("GET", "POST"):
            response = _request(client, method, url, world.post_data(route))
            status = response.status_code
            to_login = status == 302 and response["Location"].startswith(login)
            if status != 404 and not to_login and not _method_refused_for_everyone(world, route, method, status):
                failures.append(f"{method} {url} ({route.name}) -> {status}")
    _report(failures, "novel URLs that did not answer an anonymous visitor with 404 or the login page")


def test_viewer_reads_and_gets_403_on_every_write(world):
    client = _client(world.members.viewer)
    failures: list[str] = []
    for route, url in world.urls(failures):
        status = _request(client, "GET", url).status_code
        if route.needs("GET") == Role.VIEWER:
            if not (status == 200 or 300 <= status < 400 or _method_refused_for_everyone(world, route, "GET", status)):
                failures.append(f"GET {url} ({route.name}) -> {status}, expected 200/3xx/405")
        elif status != 403 and not _method_refused_for_everyone(world, route, "GET", status):
            failures.append(f"GET {url} ({route.name}) -> {status}, expected 403")
        if route.needs("POST") != Role.VIEWER:
            status, unchanged = _viewer_post_unchanged(client, url, world.post_data(route))
            if status != 403 and not _method_refused_for_everyone(world, route, "POST", status):
                failures.append(f"POST {url} ({route.name}) -> {status}, expected 403")
            if not unchanged:
                failures.append(f"POST {url} ({route.name}) changed the database for a viewer")
    _report(failures, "novel URLs that let a viewer write, or did not let a viewer read")


def _check_member(world: World, user: object, role: Role) -> list[str]:
    rank = {Role.VIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}
    client = _client(user)
    failures: list[str] = []
    for route, url in world.urls(failures):
        for method in ("GET", "POST"):
            status = _request(client, method, url, world.post_data(route)).status_code
            if _method_refused_for_everyone(world, route, method, status):
                continue
            if rank[route.needs(method)] > rank[role]:
                if status != 403:
                    failures.append(f"{method} {url} ({route.name}) -> {status}, expected 403 (needs {route.needs(method)})")
            elif status in (403, 404, 405) or status >= 500:
                failures.append(f"{method} {url} ({route.name}) -> {status}, expected success")
    return failures


def test_editor_succeeds_except_where_owner_is_needed(world):
    _report(_check_member(world, world.members.editor, Role.EDITOR), "novel URLs wrong for an editor")


def test_owner_succeeds_on_every_novel_url(world):
    _report(_check_member(world, world.members.owner, Role.OWNER), "novel URLs wrong for the owner")


def test_objects_of_another_novel_are_404_through_this_novel(world):
    """An owner of novel A cannot reach novel B's rows by putting B's ids into A's URLs."""
    from novels.services import novel_create

    other = novel_create(owner=world.members.stranger, title="Someone else's book", language="en")  # type: ignore[attr-defined]
    client = _client(world.members.owner)  # type: ignore[attr-defined]
    failures: list[str] = []
    for route, _ in world.urls(failures):
        foreign = {k: v for k, v in world.kwargs_for(route, novel=other).items() if k.endswith("_id") and k != "novel_id"}
        if not foreign:
            continue
        url = world.url(route, **foreign)
        for method in ("GET", "POST"):
            status = _request(client, method, url, world.post_data(route)).status_code
            if status != 404 and not _method_refused_for_everyone(world, route, method, status):
                failures.append(f"{method} {url} ({route.name}) -> {status}")
    _report(failures, "novel URLs that reach another novel's object by id (expected 404)")
