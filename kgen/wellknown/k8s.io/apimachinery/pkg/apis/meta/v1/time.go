package v1

// Time is a wrapper around time.Time which supports correct
// marshaling to YAML and JSON. It is serialized as an RFC 3339 date and time
// in UTC with second precision; the zero time is serialized as null.
//
// +protobuf.options.marshal=false
// +protobuf.as=Timestamp
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +kgen:python=kgen.runtime.timeutil:Time
// +kgen:jsonType=string
type Time struct {
	// Represents seconds of UTC time since Unix epoch.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
	// Non-negative fractions of a second at nanosecond resolution.
	Nanos int32 `json:"nanos" protobuf:"varint,2,opt,name=nanos"`
}

// MicroTime is version of Time with microsecond level precision.
//
// +protobuf.options.marshal=false
// +protobuf.as=Timestamp
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +kgen:python=kgen.runtime.timeutil:MicroTime
// +kgen:jsonType=string
type MicroTime struct {
	// Represents seconds of UTC time since Unix epoch.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
	// Non-negative fractions of a second at nanosecond resolution.
	Nanos int32 `json:"nanos" protobuf:"varint,2,opt,name=nanos"`
}

// Timestamp is the protobuf form of Time and MicroTime: an instant as seconds and
// nanoseconds since the Unix epoch. API types hold Time or MicroTime, not Timestamp.
type Timestamp struct {
	// seconds since 1970-01-01T00:00:00Z, for instants from year 1 to year 9999.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
	// nanos is the fraction of the second, 0 to 999,999,999, counting forward in time
	// even when seconds is negative.
	Nanos int32 `json:"nanos" protobuf:"varint,2,opt,name=nanos"`
}

// Duration is a wrapper around time.Duration which supports correct
// marshaling to YAML and JSON. In particular, it marshals into strings, which
// can be used as map keys in json.
//
// +kgen:python=kgen.runtime.timeutil:Duration
// +kgen:jsonType=string
type Duration struct {
	Duration int64 `json:"duration" protobuf:"varint,1,opt,name=duration,casttype=time.Duration"`
}
