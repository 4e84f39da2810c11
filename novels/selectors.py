from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from novels.models import BlueprintCard, Chapter, Membership, Novel


def novel_list_for(*, user: User) -> QuerySet[Novel]:
    return Novel.objects.filter(memberships__user=user).distinct()


def novel_members(*, novel: Novel) -> QuerySet[Membership]:
    return Membership.objects.filter(novel=novel).select_related("user").order_by("user__username")


def novel_chapters(*, novel: Novel) -> QuerySet[Chapter]:
    return Chapter.objects.filter(novel=novel).order_by("number")


def card_as_dict(card: BlueprintCard) -> dict[str, Any]:
    """A blueprint card's seven fields as prompts and context snapshots carry them."""
    return {
        "number": card.number,
        "title": card.title,
        "position": card.position,
        "core_function": card.core_function,
        "suspense_density": card.suspense_density,
        "foreshadowing": card.foreshadowing,
        "cognitive_twist": card.cognitive_twist,
        "brief": card.brief,
    }
