"""Person edits the memory pages need beyond `memory.services`: a character's
name, aliases and description. Like every person edit it records
edited_by/edited_at, so the fix survives re-finalization of other chapters."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils import timezone

from memory.models import Character

NAME_LIMIT = 200


def character_edit(
    *,
    character: Character,
    name: str,
    aliases: Sequence[str],
    description: str,
    user: User | None,
) -> Character:
    """Rename a character and replace its aliases and description."""
    name = " ".join((name or "").split())
    if not name:
        raise ValidationError("The character's name cannot be empty — nothing was saved.")
    if len(name) > NAME_LIMIT:
        raise ValidationError(
            f"The name is {len(name)} characters; the limit is {NAME_LIMIT} — nothing was saved."
        )
    if Character.objects.filter(novel_id=character.novel_id, name=name).exclude(pk=character.pk).exists():
        raise ValidationError(f"Another character is already called “{name}” — nothing was saved.")
    clean_aliases: list[str] = []
    for alias in aliases:
        alias = " ".join(alias.split())
        if alias and alias != name and alias not in clean_aliases:
            clean_aliases.append(alias)
    character.name = name
    character.aliases = clean_aliases
    character.description = (description or "").strip()
    character.edited_by = user
    character.edited_at = timezone.now()
    character.save(update_fields=["name", "aliases", "description", "edited_by", "edited_at"])
    return character
