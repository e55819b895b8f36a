package io.prefixlog.schemas.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The JSON configuration every prefixlog wire type is read and written with.
 *
 * <p>Absent stays absent ({@code NON_NULL}): a field a producer could not know is left out, never
 * written as null. Unknown fields are ignored on read so that newer producers do not break older
 * readers; the JSON Schemas in {@code schemas/} are where strictness lives.
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      // Jackson caps strings at 20 million characters by default; a legal 16 MiB body as base64
      // is 22.4 million, and the raw event or keyframe holding it failed as invalid JSON. Input
      // sizes are bounded by the record limits (RecordLimits), not here.
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                  .build())
          .defaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          // Emoji and other astral characters as their 4 UTF-8 bytes, not 12 bytes of escapes.
          .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
          // Parse errors must never quote the input: it can hold a prompt.
          .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION.mappedFeature())
          .build();

  private static final String NEVER = "a tree of plain JSON nodes always serialises";

  private Json() {}

  /** The shared, thread-safe mapper. Do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * A tree of plain JSON nodes (built, not bound from objects) as UTF-8 bytes. Such a tree always
   * serialises, so Jackson's checked exception would be a catch at every caller that cannot happen.
   */
  public static byte[] treeBytes(JsonNode tree) {
    try {
      return MAPPER.writeValueAsBytes(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(NEVER, e);
    }
  }

  /** {@link #treeBytes} as a string. */
  public static String treeString(JsonNode tree) {
    try {
      return MAPPER.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(NEVER, e);
    }
  }
}
