"""Direct calls of strawberry resolvers for compiled plans (``compiled``).

strawberry wraps each resolver in a function that, on every call, builds the ``Info``, converts
the arguments graphql-core coerced into Python values (input classes, lists, enums) and runs the
field's extensions. The conversion looks up names, resolves annotations and walks the argument
types anew each time: under load it is about a sixth of a small query's time. For a field
without extensions, exception handlers or special argument types, ``DirectResolver`` does the
same three steps with the argument types walked once, when the plan is made:

- the ``Info`` is strawberry's ``info_class(_raw_info=..., _field=...)``, as its wrapper makes it;
- each argument is converted as ``strawberry.types.arguments.convert_argument`` converts it, for
  the kinds of types handled here: scalars and enums (unchanged), lists (copied), optional
  types, and input classes (built with ``None`` for the fields a request leaves out that have
  no default). Anything else (``Maybe``, lazy types, ``GlobalID``, inputs with ``from_input``)
  leaves the field to strawberry's wrapper, as does a field with extensions (permissions are
  extensions) or exception handlers;
- the resolver is called with the root as ``self``/``root``/``parent`` and ``info`` where its
  signature asks for them, as ``get_arguments`` passes them.

A test converts many argument values both ways and checks the results are equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING
from typing import Any

from graphql import GraphQLField, GraphQLResolveInfo
from strawberry.relay.types import GlobalID
from strawberry.scalars import is_scalar
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.base import (
    StrawberryList,
    StrawberryMaybe,
    StrawberryOptional,
    has_object_definition,
)
from strawberry.types.enum import StrawberryEnumDefinition, has_enum_definition
from strawberry.types.field import StrawberryField
from strawberry.types.lazy_type import LazyType
from strawberry.types.unset import UNSET

Converter = Callable[[Any], Any]


def _unchanged(value: Any) -> Any:
    return value


class DirectResolver:
    """Calls one field's resolver as strawberry's wrapper would (see the module's text)."""

    __slots__ = ("_arguments", "_field", "_info_class", "_info_name", "_positional", "_root_names")

    def __init__(
        self,
        field: StrawberryField,
        arguments: tuple[tuple[str, str, Converter], ...],
        info_class: type,
    ) -> None:
        resolver = field.base_resolver
        assert resolver is not None
        self._field = field
        self._arguments = arguments
        self._info_class = info_class
        self._info_name = resolver.info_parameter.name if resolver.info_parameter else None
        self._positional = resolver.self_parameter is not None
        self._root_names = tuple(
            p.name for p in (resolver.parent_parameter, resolver.root_parameter) if p is not None
        )

    def __call__(self, source: Any, info: GraphQLResolveInfo[Any], args: dict[str, Any]) -> Any:
        kwargs: dict[str, Any] = {}
        for graphql_name, python_name, convert in self._arguments:
            if graphql_name in args:
                kwargs[python_name] = convert(args[graphql_name])
        for name in self._root_names:
            kwargs[name] = source
        if self._info_name is not None:
            kwargs[self._info_name] = self._info_class(_raw_info=info, _field=self._field)
        resolver = self._field.base_resolver
        assert resolver is not None
        return resolver(source, **kwargs) if self._positional else resolver(**kwargs)


class DirectResolvers:
    """``DirectResolver``s of one strawberry schema's fields, or None where strawberry's own
    wrapper must run."""

    def __init__(self, strawberry_schema: Any) -> None:
        self._config = strawberry_schema.config
        converter = getattr(strawberry_schema, "schema_converter", None)
        self._registry = getattr(converter, "scalar_registry", {})
        # Exception handlers turn exceptions into results inside the wrapper. The attributes are
        # strawberry's own; if one is missing (another version) no field is called directly.
        self._handlers = getattr(converter, "_exception_handler_specs", None)

    def for_field(self, field_def: GraphQLField) -> DirectResolver | None:
        field = field_def.extensions.get(GraphQLCoreConverter.DEFINITION_BACKREF)
        if (
            not isinstance(field, StrawberryField)
            or field.base_resolver is None
            or field.extensions
            or self._handlers is None
            or self._handlers
            or field.is_subscription
        ):
            return None
        arguments = []
        for argument in field.arguments:
            convert = self.converter(argument.type)
            if convert is None or argument.python_name is None:
                return None
            name = self._config.name_converter.from_argument(argument)
            arguments.append((name, argument.python_name, convert))
        return DirectResolver(field, tuple(arguments), self._config.info_class)

    def converter(self, type_: Any) -> Converter | None:
        """A function converting a coerced value of ``type_`` as ``convert_argument`` does, or
        None for a type it does not handle."""
        if isinstance(type_, StrawberryMaybe | LazyType) or type_ is GlobalID:
            return None
        if isinstance(type_, StrawberryOptional):
            return self.converter(type_.of_type)  # None and UNSET pass through every converter
        if isinstance(type_, StrawberryList):
            item = type_.of_type
            if isinstance(item, StrawberryOptional) and not isinstance(item, StrawberryMaybe):
                item_is_leaf = self._is_leaf(item.of_type)
            else:
                item_is_leaf = self._is_leaf(item)
            if item_is_leaf:
                return _copied_list
            convert_item = self.converter(item)
            return None if convert_item is None else _list_of(convert_item)
        if self._is_leaf(type_) or has_enum_definition(type_):
            return _unchanged
        if has_object_definition(type_):
            return self._input_converter(type_)
        return None

    def _is_leaf(self, type_: Any) -> bool:
        if type_ is GlobalID or isinstance(type_, LazyType):
            return False
        return is_scalar(type_, self._registry) or isinstance(type_, StrawberryEnumDefinition)

    def _input_converter(self, cls: type) -> Converter | None:
        definition = cls.__strawberry_definition__  # type: ignore[attr-defined]
        if not definition.is_input or definition.from_input is not None:
            return None
        defaults = {
            f.python_name: None
            for f in definition.fields
            if f.default_value is MISSING and f.default_factory is MISSING
        }
        fields = []
        for f in definition.fields:
            convert = self.converter(f.resolve_type(type_definition=definition))
            if convert is None:
                return None
            fields.append((self._config.name_converter.from_field(f), f.python_name, convert))
        return _input_of(cls, defaults, tuple(fields))


def _copied_list(value: Any) -> Any:
    if value is None or value is UNSET:
        return value
    return list(value)  # graphql-core may share a default list between requests


def _list_of(convert: Converter) -> Converter:
    def convert_list(value: Any) -> Any:
        if value is None or value is UNSET:
            return value
        return [convert(x) for x in value]

    return convert_list


def _input_of(
    cls: type, defaults: dict[str, None], fields: tuple[tuple[str, str, Converter], ...]
) -> Converter:
    def convert_input(value: Any) -> Any:
        if value is None or value is UNSET:
            return value
        kwargs: dict[str, Any] = dict(defaults)
        for graphql_name, python_name, convert in fields:
            if graphql_name in value:
                kwargs[python_name] = convert(value[graphql_name])
        return cls(**kwargs)

    return convert_input
