"""Judges tool parameter schemas with the model providers' own SDKs (docs/dialects.md).

Reads a JSON file: a list of {"name", "dialect", "schema"} (the schema as the adapter of that
dialect sends it) and prints one JSON object: per dialect (or per `group`, when entries name
one) the number judged and accepted, and every refusal with its reason.

- openai-strict: openai-agents' `ensure_strict_json_schema` (what the Agents SDK runs on a
  strict tool's parameters) must leave the schema exactly as it is, and the keywords, limits and
  root rules OpenAI documents for Structured Outputs must hold.
- gemini: google-genai's `types.Schema` (extra fields forbidden) must accept the schema, and
  `types.FunctionDeclaration` the declaration around it; an object below the root must declare
  properties (the API answers "properties: should be non-empty for OBJECT type").
- anthropic-strict: an entry with `"strict": true` (a view sent with `strict: true`) must be
  left exactly as it is by anthropic's `transform_schema` (what the SDK runs on a strict tool's
  schema) and reach no recursive type; one with `"strict": false` (a view that cannot go strict,
  sent as the portable form) only the root rules. The report counts the strict ones (`strict`).
- every dialect: the root is `type: object` with no combinator, `enum` or `not`.

An entry may also carry `sent`: `{"wire": "openai"|"anthropic"|"gemini", "tool": ...}`, the whole
tool definition exactly as a loop put it in a request body (an OpenAI `tools[]` entry, an
Anthropic `tools[]` entry, a Gemini function declaration). It is judged too: by the SDKs' own
request types (openai's `ChatCompletionFunctionToolParam`, anthropic's `ToolParam`, google-genai's
`types.FunctionDeclaration`), no member they do not declare and the APIs' name rules; an OpenAI
or Anthropic definition with `"strict": true` is judged in that API's strict dialect. A Gemini declaration without `parameters`
(a tool that takes none) has `schema` null and only its declaration judged.
"""

import copy
import json
import re
import sys

import pydantic
from agents.strict_schema import ensure_strict_json_schema
from anthropic import transform_schema
from anthropic.types import ToolParam
from google.genai import types
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.shared_params import FunctionDefinition

# OpenAI Structured Outputs: the keywords it documents as supported.
STRICT_KEYWORDS = {
    "type", "description", "properties", "required", "additionalProperties", "items",
    "enum", "anyOf", "$ref", "$defs", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "const",
}
STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
STRICT_MAX_DEPTH = 10
STRICT_MAX_PROPERTIES = 5000
STRICT_MAX_ENUM_VALUES = 1000
STRICT_MAX_STRING_CHARS = 120_000


def root_problems(schema):
    out = []
    if schema.get("type") != "object":
        out.append(f"root type {schema.get('type')!r}")
    for key in ("oneOf", "anyOf", "allOf", "enum", "not"):
        if key in schema:
            out.append(f"`{key}` at the root")
    return out


def subschemas(schema):
    """(child, deeper) pairs: deeper says whether it is a level of object nesting (OpenAI: "up to
    5000 object properties total, with up to 10 levels of nesting")."""
    for key in ("properties", "$defs", "defs"):
        for child in (schema.get(key) or {}).values():
            yield child, key == "properties"
    if isinstance(schema.get("items"), dict):
        yield schema["items"], False
    if isinstance(schema.get("additionalProperties"), dict):
        yield schema["additionalProperties"], True
    for key in ("anyOf", "oneOf", "allOf"):
        for child in schema.get(key) or []:
            yield child, False


def strict_problems(schema):
    out = []
    try:
        strict = ensure_strict_json_schema(copy.deepcopy(schema))
        if strict != schema:
            out.append("ensure_strict_json_schema changed it")
    except Exception as e:  # the SDK refuses it outright
        out.append(f"ensure_strict_json_schema: {e}")
    stats = {"properties": 0, "enums": 0, "chars": 0}

    def walk(s, depth, at):
        if depth > STRICT_MAX_DEPTH:
            out.append(f"nested deeper than {STRICT_MAX_DEPTH} at {at}")
            return
        for k in s:
            if k not in STRICT_KEYWORDS:
                out.append(f"keyword `{k}` at {at}")
        if "type" not in s and "anyOf" not in s and "$ref" not in s:
            out.append(f"no type at {at}")
        if s.get("type") == "object":
            if s.get("additionalProperties") is not False:
                out.append(f"open object at {at}")
            props = s.get("properties") or {}
            if sorted(s.get("required") or []) != sorted(props):
                out.append(f"not every property required at {at}")
            stats["properties"] += len(props)
            stats["chars"] += sum(len(p) for p in props)
        if "format" in s and s["format"] not in STRICT_FORMATS:
            out.append(f"format {s['format']!r} at {at}")
        if "enum" in s:
            stats["enums"] += len(s["enum"])
            stats["chars"] += sum(len(str(v)) for v in s["enum"])
        for child, deeper in subschemas(s):
            walk(child, depth + 1 if deeper else depth, at + "/…")

    walk(schema, 1, "#")
    if stats["properties"] > STRICT_MAX_PROPERTIES:
        out.append(f"{stats['properties']} properties")
    if stats["enums"] > STRICT_MAX_ENUM_VALUES:
        out.append(f"{stats['enums']} enum values")
    if stats["chars"] > STRICT_MAX_STRING_CHARS:
        out.append(f"{stats['chars']} characters of names and enum values")
    return out


def first_difference(a, b, at="#"):
    """Where `b` (what a transformer made of `a`) first differs from `a`, and how."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                return f"`{k}` dropped at {at}"
        for k in b:
            if k not in a:
                return f"`{k}` added at {at}"
        for k in a:
            d = first_difference(a[k], b[k], f"{at}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{at}/{i}")
            if d:
                return d
        return None
    return None if a == b else f"changed at {at}"


def anthropic_strict_problems(schema):
    """What keeps a schema from Anthropic's strict tool use (`strict: true`): anthropic's
    `transform_schema` (what the SDK runs on a strict tool's schema: it moves what the grammar
    cannot enforce into the description, closes every object) must leave it unchanged, and no
    type may refer to itself (Anthropic's strict mode refuses recursive schemas)."""
    out = []
    try:
        strict = transform_schema(copy.deepcopy(schema))
        if strict != schema:
            out.append("transform_schema: " + (first_difference(schema, strict) or "changed it"))
    except Exception as e:
        out.append(f"transform_schema: {e}")
    if "$ref" in json.dumps(schema):
        out.append("a recursive type ($ref)")
    return out


def gemini_problems(name, description, schema):
    out = []
    try:
        types.Schema.model_validate(schema)
        types.FunctionDeclaration.model_validate(
            {"name": name, "description": description, "parameters": schema}
        )
    except Exception as e:
        first = str(e).splitlines()
        out.append("types.Schema: " + " / ".join(first[:3]))

    def walk(s, at, root):
        if s.get("type") == "object" and not s.get("properties") and not root:
            out.append(f"an object without properties at {at}")
        for child, _ in subschemas(s):
            walk(child, at + "/…", False)

    walk(schema, "#", True)
    return out


# The name rules the request types document: OpenAI's `FunctionDefinition.name` ("a-z, A-Z, 0-9,
# or contain underscores and dashes, with a maximum length of 64") and Anthropic's tool name
# (`^[a-zA-Z0-9_-]{1,64}$`).
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def typed_dict_problems(kind, value, at):
    """`value` checked as the SDK's TypedDict `kind`: pydantic's validation of its declared
    members, and no member it does not declare (pydantic ignores those; the APIs refuse them)."""
    out = []
    try:
        pydantic.TypeAdapter(kind).validate_python(value)
    except pydantic.ValidationError as e:
        out.append(f"{kind.__name__}: " + " / ".join(str(e).splitlines()[:3]))
    if isinstance(value, dict):
        known = kind.__required_keys__ | kind.__optional_keys__
        out += [f"{at}: member `{k}` is not in {kind.__name__}" for k in value if k not in known]
    return out


def sent_problems(entry):
    wire, tool = entry["sent"]["wire"], entry["sent"]["tool"]
    out = []
    if wire == "openai":
        out += typed_dict_problems(ChatCompletionFunctionToolParam, tool, "tool")
        function = tool.get("function") or {}
        out += typed_dict_problems(FunctionDefinition, function, "function")
        name, schema = function.get("name", ""), function.get("parameters")
    elif wire == "anthropic":
        out += typed_dict_problems(ToolParam, tool, "tool")
        name, schema = tool.get("name", ""), tool.get("input_schema")
    elif wire == "gemini":
        try:
            types.FunctionDeclaration.model_validate(tool)
        except Exception as e:
            out.append("types.FunctionDeclaration: " + " / ".join(str(e).splitlines()[:3]))
        name, schema = tool.get("name", ""), tool.get("parameters")
    else:
        return [f"unknown wire {wire!r}"]
    if wire != "gemini" and not NAME.match(name):
        out.append(f"name {name!r}")
    if schema != entry["schema"]:
        out.append("the judged schema is not the one sent")
    return out


def judge(entries):
    """Per dialect (or group): the number judged and accepted, and every refusal."""
    report = {}
    for e in entries:
        d = report.setdefault(e.get("group", e["dialect"]),
                              {"judged": 0, "accepted": 0, "strict": 0, "refused": []})
        d["judged"] += 1
        schema = e["schema"]
        problems = sent_problems(e) if "sent" in e else []
        if schema is None:
            # Only a Gemini declaration may leave `parameters` out (a tool that takes none).
            if e.get("sent", {}).get("wire") != "gemini":
                problems.append("no schema")
        else:
            problems += root_problems(schema)
            if e["dialect"] == "openai-strict":
                problems += strict_problems(schema)
            elif e["dialect"] == "gemini":
                problems += gemini_problems(e["name"], e.get("description", ""), schema)
            elif e["dialect"] == "anthropic-strict" and e.get("strict"):
                d["strict"] += 1
                problems += anthropic_strict_problems(schema)
        if problems:
            d["refused"].append({"name": e["name"], "problems": problems[:5]})
        else:
            d["accepted"] += 1
    return report


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        json.dump(judge(json.load(f)), sys.stdout)
