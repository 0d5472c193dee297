"""Block parameters: pointers build nested data; a schema steers coercion."""

from pydantic import BaseModel

from llmist.syntax import BlockParseError, parse_block_params

content = """!!!ARG:users/0/name
Alice
!!!ARG:users/0/age
25
!!!ARG:zip
007"""
print(parse_block_params(content))  # {'users': [{'name': 'Alice', 'age': 25}], 'zip': 7}


class User(BaseModel):
    name: str
    age: int


class Params(BaseModel):
    users: list[User]
    zip: str  # a string field keeps "007" as written


print(parse_block_params(content, schema=Params))  # {..., 'zip': '007'}

try:
    parse_block_params("!!!ARG:items/0\na\n!!!ARG:items/2\nc")
except BlockParseError as exc:
    print(exc)  # Array index gap: expected 1, got 2
