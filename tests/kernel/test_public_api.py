"""The kernel's public surface: every name of the fixed API, and a complete tuple __all__."""

from __future__ import annotations

import inspect

import dsh_lsp.kernel as kernel

FIXED_API = {
    "DshError",
    "ServiceConflictError",
    "ServiceMissingError",
    "PluginConfigError",
    "PluginFailedError",
    "ListenerError",
    "WaterfallMisuseError",
    "KernelClosedError",
    "ServiceKey",
    "Disposer",
    "EmitEvent",
    "WaterfallEvent",
    "StreamWaterfallEvent",
    "SerialEvent",
    "ParallelEvent",
    "Plugin",
    "Fiber",
    "FiberState",
    "Context",
    "Kernel",
}


def test_all_is_a_sorted_tuple_of_exported_names() -> None:
    assert isinstance(kernel.__all__, tuple)

    # ruff's order (RUF022): CONSTANTS, then Classes, then functions, each alphabetical
    def kind(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert list(kernel.__all__) == sorted(kernel.__all__, key=kind)
    for name in kernel.__all__:
        assert hasattr(kernel, name), name


def test_the_fixed_api_is_exported() -> None:
    assert set(kernel.__all__) >= FIXED_API


def test_every_public_class_of_the_package_is_exported() -> None:
    exported = {getattr(kernel, name) for name in kernel.__all__}
    for name, value in vars(kernel).items():
        if inspect.isclass(value) and not name.startswith("_"):
            assert value in exported, name
