from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from novels.models import Chapter, Membership, Novel


def novel_list_for(*, user: User) -> QuerySet[Novel]:
    return Novel.objects.filter(memberships__user=user).distinct()


def novel_members(*, novel: Novel) -> QuerySet[Membership]:
    return Membership.objects.filter(novel=novel).select_related("user").order_by("user__username")


def novel_chapters(*, novel: Novel) -> QuerySet[Chapter]:
    return Chapter.objects.filter(novel=novel).order_by("number")
