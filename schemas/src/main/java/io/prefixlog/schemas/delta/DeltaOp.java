package io.prefixlog.schemas.delta;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.Objects;

/**
 * One operation of a delta. Offsets and lengths count Unicode code points of the base decoded as
 * UTF-8, so that any JSON tool (jq included) can apply them. Every op is an object of one shape,
 * {@code {"op":"copy","from":…,"len":…}} or {@code {"op":"insert","text":…}}, so that a
 * schema-inferring sink maps them to columns.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "op")
@JsonSubTypes({
  @JsonSubTypes.Type(value = DeltaOp.Copy.class, name = "copy"),
  @JsonSubTypes.Type(value = DeltaOp.Insert.class, name = "insert")
})
public sealed interface DeltaOp {

  /** Copies {@code len} code points of the base starting at code point {@code from}. */
  record Copy(@JsonProperty("from") int from, @JsonProperty("len") int len) implements DeltaOp {
    public Copy {
      if (from < 0 || len <= 0) {
        throw new IllegalArgumentException(
            "copy needs from >= 0 and len > 0, got from=" + from + " len=" + len);
      }
    }
  }

  /** Inserts literal text. */
  record Insert(@JsonProperty("text") String text) implements DeltaOp {
    public Insert {
      Objects.requireNonNull(text, "text");
      if (text.isEmpty()) {
        throw new IllegalArgumentException("insert text must not be empty");
      }
    }

    @Override
    public String toString() {
      return "Insert[chars=" + text.length() + "]";
    }
  }
}
