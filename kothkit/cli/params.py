"""Command-line values of plain types converted without pydantic.

typer (from 0.29) converts every parameter of the command it runs through a pydantic
``TypeAdapter``: importing pydantic and building the adapters of ``kothkit run``'s options took
0.2 s of every command's start-up on the development VM (0.13 s of it the import), a tenth of a
24,000-game connect4 tournament.  kothkit's parameters are plain types (``str``, ``int``,
``float``, ``bool``, ``Path`` and lists of them; None for an option left out): :func:`install`
converts their usual values here, the way typer's adapters convert them.  Anything else -- a value
this does not take at a glance (``--jobs x``, ``--seed 1e3``), another type, a parameter with
bounds or a parser -- goes to typer's own conversion, so its messages and its edge cases stay
typer's.  With a typer that has no such hook, nothing is changed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args, get_origin

_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?(?:[0-9]{1,18}(?:\.[0-9]*)?|\.[0-9]+)")


def _plain(annotation: Any, info: Any) -> Any:
    """A converter of one value for ``annotation``, or None where typer's own must do it."""
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None:
        return None
    if annotation is str:
        return lambda v: v if type(v) is str else _NO
    if annotation is int or annotation is float:
        if any(getattr(info, k, None) is not None for k in ("min", "max")) or getattr(info, "clamp", False):
            return None
        pattern, make = (_INT, int) if annotation is int else (_FLOAT, float)
        # A default comes as a number already (an int is a float's too, as typer's adapter takes it).
        numbers = (int,) if annotation is int else (int, float)
        return lambda v: (make(v) if type(v) is str and pattern.fullmatch(v) else make(v) if type(v) in numbers
                          else _NO)
    if annotation is bool:
        return lambda v: v if type(v) is bool else _NO
    if annotation is Path:
        try:
            from typer._param_types import coerce_cli_path
        except ImportError:  # pragma: no cover - another typer
            return None
        kind = getattr(info, "path_type", None) or Path
        if not (isinstance(kind, type) and issubclass(kind, Path)):
            return None

        # typer's adapter calls the same function (the checks of exists=, dir_okay=... live in it); given
        # a Path, it has no text to convert through pydantic.
        return lambda v, param, ctx: coerce_cli_path(kind(v) if type(v) is str else v, info, path_type=kind,
                                                     param=param, ctx=ctx)
    return None


#: What a converter returns for a value it leaves to typer.
_NO = object()


def install() -> bool:
    """Convert plain parameters of typer commands here (see the module's docstring); True if done."""
    try:
        from typer import core
        from typer._coercion import RuntimeParam, build_runtime_param
    except ImportError:  # another typer: it converts as it always did
        return False
    base = getattr(core, "_TyperParameter", None)
    if base is None or not hasattr(base, "get_runtime_param") or not hasattr(RuntimeParam, "_coerce_value"):
        return False

    class PlainParam(RuntimeParam):
        """Plain values here; any other, typer's conversion (built when first needed)."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            desc = param.type_descriptor
            many = get_origin(desc.annotation) is list
            leaf = _plain(get_args(desc.annotation)[0] if many else desc.annotation, desc.parameter_info)
            try:
                if many:
                    if isinstance(value, (list, tuple)):
                        got = [_one(leaf, v, param, ctx) for v in value]
                        if not any(g is _NO for g in got):
                            return got
                else:
                    got = _one(leaf, value, param, ctx)
                    if got is not _NO:
                        return got
            except Exception:  # typer's own conversion says what is wrong, in its words
                pass
            return build_runtime_param(desc)._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            desc = self.type_descriptor
            many = get_origin(desc.annotation) is list
            leaf = get_args(desc.annotation)[0] if many else desc.annotation
            if (desc.file_annotation is None and (not many or len(get_args(desc.annotation)) == 1)
                    and _plain(leaf, desc.parameter_info) is not None):
                self._runtime_param = PlainParam(parameter_info=desc.parameter_info, annotation=desc.annotation)
            else:
                self._runtime_param = build_runtime_param(desc)
        return self._runtime_param

    base.get_runtime_param = get_runtime_param
    return True


def _one(convert: Any, value: Any, param: Any, ctx: Any) -> Any:
    if convert.__code__.co_argcount == 3:  # a path: typer's own function, with the parameter's checks
        return convert(value, param, ctx) if (type(value) is str and value) or isinstance(value, Path) else _NO
    return convert(value)
