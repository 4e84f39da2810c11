from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST, require_safe

from novels import selectors, services
from novels.forms import MemberForm, NovelForm, NovelSettingsForm
from novels.models import Membership, Role
from novels.permissions import novel_access


@login_required
def novel_list(request: HttpRequest) -> HttpResponse:
    novels = selectors.novel_list_for(user=request.user)  # type: ignore[arg-type]
    return render(request, "novels/list.html", {"novels": novels})


@login_required
def novel_create(request: HttpRequest) -> HttpResponse:
    form = NovelForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        novel = services.novel_create(
            owner=request.user,  # type: ignore[arg-type]
            title=data["title"],
            premise=data["premise"],
            genre=data["genre"],
            language=data["language"],
            target_chapters=data["target_chapters"],
            target_chapter_length=data["target_chapter_length"],
            memory_budget=data["memory_budget"],
        )
        return redirect("novels:detail", novel_id=novel.pk)
    return render(request, "novels/create.html", {"form": form})


@require_safe
def novel_detail(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id)
    chapters = selectors.novel_chapters(novel=access.novel)
    return render(request, "novels/detail.html", {"novel": access.novel, "access": access, "chapters": chapters})


def novel_settings(request: HttpRequest, novel_id: int) -> HttpResponse:
    need = Role.OWNER if request.method == "POST" else Role.VIEWER
    access = novel_access(request, novel_id=novel_id, need=need)
    novel = access.novel
    initial = {"language": novel.language if novel.language_overridden else ""}
    form = NovelSettingsForm(request.POST or None, instance=novel, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        services.novel_update(novel=novel, **data)
        return redirect("novels:settings", novel_id=novel.pk)
    context = {"novel": novel, "access": access, "form": form, "member_form": MemberForm(),
               "members": selectors.novel_members(novel=novel)}
    return render(request, "novels/settings.html", context)


@require_POST
def member_set(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.OWNER)
    form = MemberForm(request.POST)
    error = ""
    if form.is_valid():
        try:
            services.membership_set(
                novel=access.novel, username=form.cleaned_data["username"], role=form.cleaned_data["role"]
            )
        except ValidationError as exc:
            error = " ".join(exc.messages)
    else:
        error = "Give a username and a role."
    if error:
        context = {"novel": access.novel, "access": access, "form": NovelSettingsForm(instance=access.novel),
                   "member_form": form, "members": selectors.novel_members(novel=access.novel), "member_error": error}
        return render(request, "novels/settings.html", context, status=400)
    return redirect("novels:settings", novel_id=novel_id)


@require_POST
def member_remove(request: HttpRequest, novel_id: int, membership_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.OWNER)
    get_object_or_404(Membership, novel=access.novel, pk=membership_id)
    try:
        services.membership_remove(novel=access.novel, membership_id=membership_id)
    except ValidationError as exc:
        return HttpResponse(" ".join(exc.messages), status=400)
    return redirect("novels:settings", novel_id=novel_id)


@require_POST
def novel_delete(request: HttpRequest, novel_id: int) -> HttpResponse:
    access = novel_access(request, novel_id=novel_id, need=Role.OWNER)
    services.novel_delete(novel=access.novel)
    return redirect("novels:list")
