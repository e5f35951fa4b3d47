"""Strict reading of a JSON answer against an official SDK's pydantic model.

Square's SDK builds its models without validating them (`construct_type`) and both SDKs accept unknown keys and
unknown enum values, so "the client read it" alone proves little. `check` walks the model instead: every key of the
answer must be a field of the model (by its wire name), every required field present, every value of the field's
type, and every value of an enum (`Literal[...]`, which the SDKs widen with `| str` or `Any`) one of its values.

Both scripts print one JSON object on stdout when every check passed; a failed check raises `Mismatch`, printed on
stderr with the JSON path, and the script exits 1.
"""

import datetime
import json
import sys
import types
import typing

import pydantic


class Mismatch(Exception):
    """A value the sandbox sent that the official model does not allow, or a value that is not the expected one."""


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


def expect_equal(actual, expected, what):
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


def _is_union(origin):
    return origin is typing.Union or origin is types.UnionType


def _literal_values(arguments):
    values = []
    for argument in arguments:
        if typing.get_origin(argument) is typing.Literal:
            values.extend(typing.get_args(argument))
    return values


def _fields(model):
    """The model's fields by wire name: (attribute, annotation, required)."""
    hints = typing.get_type_hints(model)
    fields = {}
    for name, info in model.model_fields.items():
        annotation = hints.get(name, info.annotation)
        fields[info.alias or name] = (name, annotation, info.is_required())
    return fields


def check(annotation, value, path="$"):
    """Raises `Mismatch` unless `value` (decoded JSON) is exactly what `annotation` allows."""
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        return check(arguments[0], value, path)
    if annotation is typing.Any or annotation is object:
        return
    if annotation is type(None):
        expect(value is None, f"{path}: expected null, got {value!r}")
        return
    if _is_union(origin):
        if value is None and type(None) in arguments:
            return
        literals = _literal_values(arguments)
        if literals:
            # An enum widened with `| str` or `Any`: only the documented values pass here.
            expect(value in literals, f"{path}: {value!r} is not one of the model's values {sorted(map(str, literals))}")
            return
        options = [option for option in arguments if option is not type(None)]
        if len(options) == 1:
            return check(options[0], value, path)
        failures = []
        for option in options:
            try:
                check(option, value, path)
                return
            except Mismatch as error:
                failures.append(str(error))
        raise Mismatch(f"{path}: {value!r} fits none of {annotation}: " + "; ".join(failures))
    if origin is typing.Literal:
        expect(value in arguments, f"{path}: {value!r} is not one of {list(arguments)}")
        return
    if origin in (list, typing.List, typing.Sequence) or annotation is list:
        expect(isinstance(value, list), f"{path}: expected an array, got {value!r}")
        for index, item in enumerate(value):
            check(arguments[0] if arguments else typing.Any, item, f"{path}[{index}]")
        return
    if origin in (dict, typing.Dict) or annotation is dict:
        expect(isinstance(value, dict), f"{path}: expected an object, got {value!r}")
        for key, item in value.items():
            check(arguments[1] if len(arguments) == 2 else typing.Any, item, f"{path}.{key}")
        return
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        expect(isinstance(value, dict), f"{path}: expected an object for {annotation.__name__}, got {value!r}")
        fields = _fields(annotation)
        for key, item in value.items():
            expect(key in fields, f"{path}: {annotation.__name__} has no field {key!r}")
            check(fields[key][1], item, f"{path}.{key}")
        for key, (_, _, required) in fields.items():
            expect(not required or key in value, f"{path}: {annotation.__name__} requires {key!r}")
        return
    if annotation is bool:
        expect(isinstance(value, bool), f"{path}: expected a Boolean, got {value!r}")
        return
    if annotation is int:
        expect(isinstance(value, int) and not isinstance(value, bool), f"{path}: expected an integer, got {value!r}")
        return
    if annotation is float:
        expect(
            isinstance(value, (int, float)) and not isinstance(value, bool), f"{path}: expected a number, got {value!r}"
        )
        return
    if annotation is str:
        expect(isinstance(value, str), f"{path}: expected a string, got {value!r}")
        return
    if annotation in (datetime.datetime, datetime.date):
        expect(isinstance(value, str), f"{path}: expected a time as text, got {value!r}")
    try:
        pydantic.TypeAdapter(annotation).validate_python(value)
    except pydantic.ValidationError as error:
        raise Mismatch(f"{path}: {error}") from error


class Responses:
    """An httpx response hook that keeps every answer, read, for checking the raw JSON behind a typed result."""

    def __init__(self):
        self.answers = []

    def __call__(self, response):
        response.read()
        self.answers.append(response)

    def install(self, client):
        """Adds the hook to an httpx client's response hooks."""
        hooks = dict(client.event_hooks)
        hooks["response"] = list(hooks.get("response", [])) + [self]
        client.event_hooks = hooks
        return client

    def since(self, count):
        return self.answers[count:]


def run(main):
    """Runs `main()`, prints its result as JSON, and exits 1 with the reason on stderr when a check fails."""
    try:
        result = main()
    except Mismatch as error:
        print(f"conformance: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(result, sort_keys=True))
