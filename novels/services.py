from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from novels.models import Architecture, Membership, Novel, Role


def novel_detect_language(*, title: str, premise: str) -> str:
    from memory.core.language import resolve_language

    # resolve_language returns a LanguageHint; the novel stores its ISO code.
    return resolve_language(f"{title}\n{premise}").code or "en"


@transaction.atomic
def novel_create(
    *,
    owner: User,
    title: str,
    premise: str = "",
    genre: str = "",
    language: str = "",
    target_chapters: int = 60,
    target_chapter_length: int = 3000,
    memory_budget: int = 6000,
) -> Novel:
    novel = Novel.objects.create(
        title=title,
        premise=premise,
        genre=genre,
        language=language or novel_detect_language(title=title, premise=premise),
        language_overridden=bool(language),
        target_chapters=target_chapters,
        target_chapter_length=target_chapter_length,
        memory_budget=memory_budget,
        created_by=owner,  # type: ignore[misc]
    )
    Membership.objects.create(novel=novel, user=owner, role=Role.OWNER)  # type: ignore[misc]
    Architecture.objects.create(novel=novel)
    return novel


def novel_update(*, novel: Novel, **fields: object) -> Novel:
    language = fields.pop("language", None)
    for name, value in fields.items():
        setattr(novel, name, value)
    if language:
        novel.language = str(language)
        novel.language_overridden = True
    elif not novel.language_overridden:
        novel.language = novel_detect_language(title=novel.title, premise=novel.premise)
    novel.save()
    return novel


def novel_delete(*, novel: Novel) -> None:
    novel.delete()


def membership_set(*, novel: Novel, username: str, role: str) -> Membership:
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        raise ValidationError(f"No user named '{username}'.")
    if role not in Role.values:
        raise ValidationError(f"Unknown role '{role}'.")
    with transaction.atomic():
        membership, _ = Membership.objects.select_for_update().get_or_create(
            novel=novel, user=user, defaults={"role": role}
        )
        if membership.role != role:
            _guard_last_owner(novel=novel, membership=membership)
            membership.role = role
            membership.save(update_fields=["role"])
    return membership


def membership_remove(*, novel: Novel, membership_id: int) -> None:
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(novel=novel, pk=membership_id).first()
        if membership is None:
            raise ValidationError("No such member.")
        _guard_last_owner(novel=novel, membership=membership)
        membership.delete()


def _guard_last_owner(*, novel: Novel, membership: Membership) -> None:
    if membership.role == Role.OWNER and Membership.objects.filter(novel=novel, role=Role.OWNER).count() == 1:
        raise ValidationError("A novel must keep at least one owner.")
