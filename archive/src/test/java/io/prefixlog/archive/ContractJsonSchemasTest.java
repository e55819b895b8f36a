package io.prefixlog.archive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Each archive table against the JSON Schema of its contract ({@code schemas/*.schema.json} in the
 * schemas jar): the same field names with the same JSON types, nested objects and array items
 * included, so a field added to one copy of a contract and not to the other fails here.
 *
 * <p>Both sides are rendered in one notation, {@code name: type} per top-level field, sorted (JSON
 * property order carries no meaning): {@code string}, {@code integer} (Iceberg {@code long}),
 * {@code number} ({@code double}), {@code boolean}, {@code array<T>}, {@code map<string, T>} (an
 * object with {@code additionalProperties}) and {@code {name: T, …}} for an object's properties. A
 * property's type is its {@code type}, or that of its {@code const} or {@code enum} values; {@code
 * $ref}s into {@code $defs} are followed; properties that only an {@code allOf} branch defines (the
 * delta ops' {@code copy} and {@code insert} fields) belong to the object too, as the one ops
 * struct holds them all.
 */
class ContractJsonSchemasTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void shouldGiveSessionDeltasTheFieldsOfTheDeltaRecordSchema() throws IOException {
    // Given
    JsonNode contract = jsonSchema("delta-record.v3");

    // When
    String table = render(ArchiveCatalog.schemaOf("session_deltas").asStruct());

    // Then
    assertThat(table).isEqualTo(render(contract, Set.of()));
  }

  @Test
  void shouldGiveChunkLookupsTheFieldsOfTheChunkLookupSchema() throws IOException {
    // Given: version 2's schema, which lists version 1's chunk_hashes too (never written in v2)
    JsonNode contract = jsonSchema("chunk-lookup.v2");

    // When
    String table = render(ArchiveCatalog.schemaOf("chunk_lookups").asStruct());

    // Then
    assertThat(table).isEqualTo(render(contract, Set.of()));
  }

  @Test
  void shouldGiveRequestsMetadataTheFieldsOfTheRequestMetadataSchema() throws IOException {
    // Given
    JsonNode contract = jsonSchema("request-metadata.v3");

    // When
    String table = render(ArchiveCatalog.schemaOf("requests_metadata").asStruct());

    // Then
    assertThat(table).isEqualTo(render(contract, Set.of()));
  }

  @Test
  void shouldGiveKvEventsTheFieldsOfTheKvEventBatchSchemaButTheOpaqueExtraKeys()
      throws IOException {
    // Given: the one field the table leaves out, on purpose (ArchiveCatalog says why)
    JsonNode contract = jsonSchema("kv-event-batch.v1");
    Set<String> omitted = Set.of("events.extra_keys");

    // When
    String table = render(ArchiveCatalog.schemaOf("kv_events").asStruct());

    // Then
    assertThat(ArchiveCatalog.KV_EVENTS_OMITTED).isEqualTo(omitted);
    assertThat(table).isEqualTo(render(contract, omitted));
  }

  @Test
  void shouldRenderBothSidesInTheSameNotation() throws IOException {
    // Given: the chunk lookup contract, small enough to spell out
    JsonNode contract = jsonSchema("chunk-lookup.v1");

    // When
    String rendered = render(contract, Set.of());

    // Then
    assertThat(rendered)
        .isEqualTo(
            "body_omitted: string\n"
                + "cached_tokens: integer\n"
                + "chunk_hashes: array<string>\n"
                + "chunk_size: integer\n"
                + "chunk_unit: string\n"
                + "chunked: string\n"
                + "hash_algo: string\n"
                + "model_name: string\n"
                + "prompt_tokens: integer\n"
                + "request_id: string\n"
                + "seq_len: integer\n"
                + "session_key: string\n"
                + "timestamp: number\n"
                + "upstream: string\n");
  }

  private static JsonNode jsonSchema(String name) throws IOException {
    String resource = "schemas/" + name + ".schema.json";
    try (InputStream in =
        ContractJsonSchemasTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource + " on the class path (the schemas jar)").isNotNull();
      return JSON.readTree(in);
    }
  }

  // ---- Iceberg side ----

  /** The table's columns but {@code kafka_ts}, which the connector adds to every table. */
  private static String render(Types.StructType table) {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(
            table.fields().stream()
                .filter(f -> !f.name().equals(ArchivedTopic.KAFKA_TS))
                .collect(Collectors.toMap(Types.NestedField::name, f -> render(f.type()))))
        .forEach((name, type) -> out.append(name).append(": ").append(type).append('\n'));
    return out.toString();
  }

  private static String render(Type type) {
    return switch (type.typeId()) {
      case STRING -> "string";
      case LONG -> "integer";
      case DOUBLE -> "number";
      case BOOLEAN -> "boolean";
      case LIST -> "array<" + render(type.asListType().elementType()) + ">";
      case MAP -> {
        assertThat(type.asMapType().keyType()).isEqualTo(Types.StringType.get());
        yield "map<string, " + render(type.asMapType().valueType()) + ">";
      }
      case STRUCT ->
          type.asStructType().fields().stream()
              .collect(
                  Collectors.toMap(
                      Types.NestedField::name, f -> render(f.type()), (a, b) -> a, TreeMap::new))
              .entrySet()
              .stream()
              .map(e -> e.getKey() + ": " + e.getValue())
              .collect(Collectors.joining(", ", "{", "}"));
      default -> throw new AssertionError("no JSON type for the column type " + type);
    };
  }

  // ---- JSON Schema side ----

  /** The top-level properties; {@code omitted} dotted paths are left out and must exist. */
  private static String render(JsonNode root, Set<String> omitted) {
    Set<String> seen = new HashSet<>();
    StringBuilder out = new StringBuilder();
    properties(root, root, "", omitted, seen)
        .forEach((name, type) -> out.append(name).append(": ").append(type).append('\n'));
    assertThat(seen).as("omitted fields the contract has").isEqualTo(omitted);
    return out.toString();
  }

  /**
   * An object's properties and their types, with those that only its {@code allOf} branches define;
   * a branch property that only constrains (no type of its own, or {@code false}) adds nothing.
   */
  private static Map<String, String> properties(
      JsonNode root, JsonNode object, String path, Set<String> omitted, Set<String> seen) {
    Map<String, String> properties = new TreeMap<>();
    addProperties(root, object, path, omitted, seen, properties);
    for (JsonNode branch : object.path("allOf")) {
      for (String part : new String[] {"then", "else"}) {
        if (branch.has(part)) {
          addProperties(root, resolve(root, branch.get(part)), path, omitted, seen, properties);
        }
      }
    }
    return properties;
  }

  private static void addProperties(
      JsonNode root,
      JsonNode object,
      String path,
      Set<String> omitted,
      Set<String> seen,
      Map<String, String> properties) {
    for (Map.Entry<String, JsonNode> field : object.path("properties").properties()) {
      String fieldPath = path + field.getKey();
      JsonNode schema = resolve(root, field.getValue());
      if (omitted.contains(fieldPath)) {
        seen.add(fieldPath);
        continue;
      }
      if (!schema.isObject() || typeName(schema) == null) {
        continue;
      }
      String type = render(root, schema, fieldPath, omitted, seen);
      String earlier = properties.putIfAbsent(field.getKey(), type);
      assertThat(earlier == null ? type : earlier)
          .as(fieldPath + " in two branches")
          .isEqualTo(type);
    }
  }

  private static String render(
      JsonNode root, JsonNode schema, String path, Set<String> omitted, Set<String> seen) {
    String type = typeName(schema);
    if (type == null) {
      throw new AssertionError(path + " has no JSON type: " + schema);
    }
    return switch (type) {
      case "array" -> {
        assertThat(schema.has("items")).as(path + " has items").isTrue();
        yield "array<"
            + render(root, resolve(root, schema.get("items")), path, omitted, seen)
            + ">";
      }
      case "object" -> {
        if (schema.has("properties")) {
          yield properties(root, schema, path + ".", omitted, seen).entrySet().stream()
              .map(e -> e.getKey() + ": " + e.getValue())
              .collect(Collectors.joining(", ", "{", "}"));
        }
        JsonNode values = resolve(root, schema.path("additionalProperties"));
        assertThat(values.isObject()).as(path + " is a map or has properties").isTrue();
        yield "map<string, " + render(root, values, path, omitted, seen) + ">";
      }
      default -> type;
    };
  }

  /** The JSON type of a schema: its {@code type}, or that of its {@code const} or enum values. */
  private static String typeName(JsonNode schema) {
    if (schema.has("type")) {
      return schema.get("type").asText();
    }
    if (schema.has("const")) {
      return typeOfValue(schema.get("const"));
    }
    if (schema.has("enum")) {
      Set<String> types = new HashSet<>();
      schema.get("enum").forEach(v -> types.add(typeOfValue(v)));
      assertThat(types).as("the types of " + schema.get("enum")).hasSize(1);
      return types.iterator().next();
    }
    return null;
  }

  private static String typeOfValue(JsonNode value) {
    if (value.isTextual()) {
      return "string";
    }
    if (value.isIntegralNumber()) {
      return "integer";
    }
    if (value.isNumber()) {
      return "number";
    }
    if (value.isBoolean()) {
      return "boolean";
    }
    throw new AssertionError("no JSON type for the value " + value);
  }

  /** Follows a {@code #/$defs/name} reference, as often as it takes. */
  private static JsonNode resolve(JsonNode root, JsonNode schema) {
    JsonNode current = schema;
    while (current.has("$ref")) {
      String ref = current.get("$ref").asText();
      assertThat(ref).startsWith("#/$defs/");
      current = root.path("$defs").path(ref.substring("#/$defs/".length()));
      assertThat(current.isMissingNode()).as(ref + " defined").isFalse();
    }
    return current;
  }
}
