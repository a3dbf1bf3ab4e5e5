"""DshError and the kernel's error classes: stable codes, hierarchy, the drawn tree."""

from __future__ import annotations

import pytest

from dsh_lsp.kernel import (
    DshError,
    EffectError,
    KernelClosedError,
    ListenerError,
    PluginConfigError,
    PluginFailedError,
    ServiceConflictError,
    ServiceMissingError,
    WaterfallMisuseError,
)
from dsh_lsp.kernel import errors as errors_module

CODES: list[tuple[type[DshError], str]] = [
    (DshError, "DSH_ERROR"),
    (ServiceConflictError, "SERVICE_CONFLICT"),
    (ServiceMissingError, "SERVICE_MISSING"),
    (PluginConfigError, "PLUGIN_CONFIG"),
    (PluginFailedError, "PLUGIN_FAILED"),
    (EffectError, "EFFECT_INVALID"),
    (ListenerError, "LISTENER_INVALID"),
    (WaterfallMisuseError, "WATERFALL_MISUSE"),
    (KernelClosedError, "KERNEL_CLOSED"),
]


@pytest.mark.parametrize(("cls", "code"), CODES)
def test_each_kernel_error_has_its_stable_code(cls: type[DshError], code: str) -> None:
    assert cls.code == code
    assert issubclass(cls, DshError)


@pytest.mark.parametrize(("cls", "code"), CODES)
def test_the_module_docstring_draws_every_kernel_error(cls: type[DshError], code: str) -> None:
    doc = errors_module.__doc__ or ""
    line = next(line for line in doc.splitlines() if f" {cls.__name__} " in line)
    assert code in line


def test_an_instance_may_narrow_the_code_and_chain_a_cause() -> None:
    cause = OSError("disk")
    err = DshError("it broke", code="SPECIFIC", cause=cause)
    assert err.code == "SPECIFIC"
    assert DshError.code == "DSH_ERROR"
    assert err.__cause__ is cause
    assert err.message == "it broke"
    assert str(err) == "it broke"


def test_without_arguments_the_class_code_and_no_cause_apply() -> None:
    err = KernelClosedError("closed")
    assert err.code == "KERNEL_CLOSED"
    assert err.__cause__ is None


def test_waterfall_misuse_is_a_listener_error() -> None:
    assert issubclass(WaterfallMisuseError, ListenerError)


def test_service_errors_name_the_key_and_owners() -> None:
    conflict = ServiceConflictError("llm", existing="plugin 'a'", incoming="plugin 'b'")
    assert "'llm'" in str(conflict)
    assert "plugin 'a'" in str(conflict)
    assert "plugin 'b'" in str(conflict)
    assert conflict.key == "llm"
    assert (conflict.existing, conflict.incoming) == ("plugin 'a'", "plugin 'b'")
    missing = ServiceMissingError("fs")
    assert missing.key == "fs"
    assert "'fs'" in str(missing)
