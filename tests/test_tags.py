"""Struct tags: json options, every protobuf form, unknown keys, malformed tags."""

from __future__ import annotations

import pytest

from kgen.source.tags import JSONTag, ProtobufTag, TagError, parse_struct_tag


def test_struct_tag_keeps_every_key_in_order():
    tag = 'json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,8,rep,name=ports" yaml:"p"'
    assert parse_struct_tag(tag) == {
        "json": "ports,omitempty",
        "patchStrategy": "merge",
        "patchMergeKey": "name",
        "protobuf": "bytes,8,rep,name=ports",
        "yaml": "p",
    }


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, JSONTag(name="")),
        ("name", JSONTag(name="name")),
        ("name,omitempty", JSONTag(name="name", omitempty=True)),
        ("name,omitzero", JSONTag(name="name", omitzero=True)),
        ("name,omitempty,omitzero", JSONTag(name="name", omitempty=True, omitzero=True)),
        ("count,string", JSONTag(name="count", string=True)),
        (",inline", JSONTag(name="", inline=True)),
        ("", JSONTag(name="")),
        ("-", JSONTag(name="", skip=True)),
        ("-,", JSONTag(name="-")),
    ],
)
def test_json_tag(value, expected):
    assert JSONTag.parse(value) == expected


@pytest.mark.parametrize(
    "value, number, label, name, options",
    [
        ("bytes,1,opt,name=metadata", 1, "opt", "metadata", ()),
        ("varint,5,opt,name=replicas", 5, "opt", "replicas", ()),
        ("bytes,3,rep,name=items", 3, "rep", "items", ()),
        ("bytes,2,req,name=spec", 2, "req", "spec", ()),
        ("bytes,4,name=nolabel", 4, "", "nolabel", ()),
        ("bytes,6,opt,name=mode,casttype=FrobberMode", 6, "opt", "mode", (("casttype", "FrobberMode"),)),
        (
            "bytes,10,rep,name=resources,casttype=ResourceList,castkey=ResourceName,castvalue=Quantity",
            10, "rep", "resources",
            (("casttype", "ResourceList"), ("castkey", "ResourceName"), ("castvalue", "Quantity")),
        ),
        ("varint,7,opt,name=count,def=1", 7, "opt", "count", (("def", "1"),)),
    ],
)  # fmt: skip
def test_protobuf_tag_forms(value, number, label, name, options):
    tag = ProtobufTag.parse(value)
    assert (tag.number, tag.label, tag.name, tag.options) == (number, label, name, options)


@pytest.mark.parametrize(
    "tag, message",
    [
        ('json:"a" json:"b"', "struct tag key 'json' appears twice"),
        ("json:name", "malformed struct tag"),
        ('json:"unterminated', "malformed struct tag"),
    ],
)
def test_malformed_struct_tags(tag, message):
    with pytest.raises(TagError, match=message):
        parse_struct_tag(tag)


@pytest.mark.parametrize(
    "value, message",
    [
        ("bytes", "needs at least a wire type and a field number"),
        ("bytes,x,opt", "field number 'x' must be a positive integer"),
        ("bytes,0,opt", "field number '0' must be a positive integer"),
        ("string,1,opt", "unknown wire type 'string'"),
    ],
)
def test_malformed_protobuf_tags(value, message):
    with pytest.raises(TagError, match=message):
        ProtobufTag.parse(value)
