"""The LLM layer: `llm_for(novel)` gives the novel's model, real or the offline demo.

    llm = llm_for(novel)
    out = llm.structured(role="planner", task="architecture_core_seed", context={...},
                         schema=ArchitecturePartOut, job_id=job.pk)

Failures a person can act on raise LLMError; its message is safe to show (no key)."""

from generation.llm.errors import LLMError
from generation.llm.service import LLM, ROLES, embedding_min_score, llm_for

__all__ = ["LLM", "ROLES", "LLMError", "embedding_min_score", "llm_for"]
