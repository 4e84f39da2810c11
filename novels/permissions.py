"""The one permission helper every novel view goes through.

Strangers get 404 (a novel's existence is itself private); members whose role
is too low for the action get 403."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from novels.models import Membership, Novel, Role

_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}


@dataclass(frozen=True)
class Access:
    novel: Novel
    role: str

    @property
    def can_edit(self) -> bool:
        return _RANK[Role(self.role)] >= _RANK[Role.EDITOR]

    @property
    def is_owner(self) -> bool:
        return self.role == Role.OWNER


def novel_access(request: HttpRequest, *, novel_id: int, need: str = Role.VIEWER) -> Access:
    user = request.user
    if not user.is_authenticated:
        raise Http404("No such novel.")
    membership = (
        Membership.objects.select_related("novel").filter(novel_id=novel_id, user_id=user.pk).first()
    )
    if membership is None:
        raise Http404("No such novel.")
    if _RANK[Role(membership.role)] < _RANK[Role(need)]:
        raise PermissionDenied("Your role on this novel does not allow that.")
    return Access(novel=membership.novel, role=membership.role)
