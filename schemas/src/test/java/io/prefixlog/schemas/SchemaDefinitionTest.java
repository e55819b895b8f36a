package io.prefixlog.schemas;

import static java.util.stream.Collectors.toList;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.ValidationMessage;
import io.prefixlog.schemas.WireSchemas.WireSchema;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The schema files themselves: valid draft 2020-12, documented, free of inert keywords, and in step
 * with the Java records (so that schema and record cannot drift apart).
 */
class SchemaDefinitionTest {

  private static final String DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

  /** Every keyword of the draft 2020-12 vocabularies: anything else would be silently ignored. */
  private static final Set<String> KEYWORDS =
      Set.of(
          // core
          "$schema",
          "$id",
          "$ref",
          "$anchor",
          "$dynamicRef",
          "$dynamicAnchor",
          "$vocabulary",
          "$comment",
          "$defs",
          // applicator
          "prefixItems",
          "items",
          "contains",
          "additionalProperties",
          "properties",
          "patternProperties",
          "dependentSchemas",
          "propertyNames",
          "if",
          "then",
          "else",
          "allOf",
          "anyOf",
          "oneOf",
          "not",
          // unevaluated
          "unevaluatedItems",
          "unevaluatedProperties",
          // validation
          "type",
          "const",
          "enum",
          "multipleOf",
          "maximum",
          "exclusiveMaximum",
          "minimum",
          "exclusiveMinimum",
          "maxLength",
          "minLength",
          "pattern",
          "maxItems",
          "minItems",
          "uniqueItems",
          "maxContains",
          "minContains",
          "maxProperties",
          "minProperties",
          "required",
          "dependentRequired",
          // meta-data, format, content
          "title",
          "description",
          "default",
          "deprecated",
          "readOnly",
          "writeOnly",
          "examples",
          "format",
          "contentEncoding",
          "contentMediaType",
          "contentSchema");

  /** Keywords whose value is one subschema that applies to the same instance. */
  private static final Set<String> SAME_INSTANCE_SCHEMA = Set.of("not", "if", "then", "else");

  /** Keywords whose value is an array of subschemas that apply to the same instance. */
  private static final Set<String> SAME_INSTANCE_SCHEMAS = Set.of("allOf", "anyOf", "oneOf");

  /** Keywords whose value is one subschema of another instance (a child, a name, an item). */
  private static final Set<String> CHILD_SCHEMA =
      Set.of(
          "items",
          "contains",
          "additionalProperties",
          "propertyNames",
          "unevaluatedItems",
          "unevaluatedProperties",
          "contentSchema");

  /** Keywords whose value maps names to subschemas of other instances. */
  private static final Set<String> CHILD_SCHEMA_MAPS =
      Set.of("properties", "patternProperties", "$defs");

  static Stream<WireSchema> schemas() {
    return WireSchemas.ALL.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void shouldBeValidAgainstTheDraft202012MetaSchema(WireSchema schema) {
    // Given
    JsonNode tree = WireSchemas.schemaTree(schema);

    // When
    Set<ValidationMessage> errors = WireSchemas.metaSchema().validate(tree);

    // Then
    assertThat(errors).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void shouldDeclareTheDialectAnIdTitleAndDescription(WireSchema schema) {
    // Given
    JsonNode tree = WireSchemas.schemaTree(schema);

    // When
    String id = tree.path("$id").asText();

    // Then
    assertThat(tree.path("$schema").asText()).isEqualTo(DRAFT_2020_12);
    assertThat(id).isEqualTo("https://prefixlog.io/schemas/" + schema.fileName());
    assertThat(tree.path("title").asText()).isNotBlank();
    assertThat(tree.path("description").asText())
        .contains(schema.type().getName())
        .contains("additionalProperties policy");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void shouldDescribeEveryProperty(WireSchema schema) {
    // Given
    JsonNode tree = WireSchemas.schemaTree(schema);
    List<String> undescribed = new ArrayList<>();

    // When
    walk(
        tree,
        (node, path, scope) -> {
          if (scope.branch()) {
            return;
          }
          node.path("properties")
              .properties()
              .forEach(
                  property -> {
                    if (property.getValue().path("description").asText().isBlank()) {
                      undescribed.add(path + "/properties/" + property.getKey());
                    }
                  });
        });

    // Then
    assertThat(undescribed).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void shouldUseOnlyDraft202012Keywords(WireSchema schema) {
    // Given
    JsonNode tree = WireSchemas.schemaTree(schema);
    List<String> unknown = new ArrayList<>();

    // When
    walk(
        tree,
        (node, path, scope) ->
            node.fieldNames()
                .forEachRemaining(
                    keyword -> {
                      if (!KEYWORDS.contains(keyword)) {
                        unknown.add(path + "/" + keyword);
                      }
                    }));

    // Then
    assertThat(unknown).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  void shouldOnlyRequireOrConstrainDeclaredProperties(WireSchema schema) {
    // Given
    JsonNode tree = WireSchemas.schemaTree(schema);

    // When
    List<String> undeclared = undeclaredNames(tree);

    // Then
    assertThat(undeclared).isEmpty();
  }

  @Test
  void shouldCatchAConditionThatNamesAnUndeclaredProperty() {
    // Given
    ObjectNode tree =
        (ObjectNode) WireSchemas.schemaTree(WireSchemas.byName("delta-record.v3")).deepCopy();
    ObjectNode keyframeRule = (ObjectNode) tree.path("allOf").path(0).path("then");
    ((ObjectNode) keyframeRule.path("properties")).put("op", false);

    // When
    List<String> undeclared = undeclaredNames(tree);

    // Then
    assertThat(undeclared).containsExactly("#/allOf/0/then: op");
  }

  static Stream<WireSchema> currentSchemas() {
    return WireSchemas.ALL.stream().filter(WireSchema::current);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("currentSchemas")
  void shouldDeclareExactlyTheRecordComponentsInTheirOrder(WireSchema schema) {
    // Given
    JsonNode tree = WireSchemas.schemaTree(schema);
    List<String> mismatches = new ArrayList<>();

    // When
    compareRecord(schema.type(), tree, tree, schema.type().getSimpleName(), mismatches);

    // Then
    assertThat(mismatches).isEmpty();
  }

  @Test
  void shouldDefineTheSharedFieldsOfRawEventsAndDeltaRecordsIdentically() {
    // Given
    JsonNode raw = WireSchemas.schemaTree(WireSchemas.byName("raw-request-event.v1"));
    JsonNode delta = WireSchemas.schemaTree(WireSchemas.byName("delta-record.v3"));
    List<String> shared =
        List.of(
            "request_id",
            "ts",
            "session_key",
            "session_key_source",
            "client_addr",
            "user_agent",
            "headers",
            "method",
            "path",
            "model");
    List<String> definitions =
        List.of(
            "sha256",
            "base64",
            "session_key",
            "session_key_source",
            "body_encoding",
            "headers",
            "response",
            "usage");

    // When
    List<String> different = new ArrayList<>();
    for (String name : shared) {
      if (!raw.path("properties").path(name).equals(delta.path("properties").path(name))) {
        different.add("properties/" + name);
      }
    }
    for (String name : definitions) {
      if (!raw.path("$defs").path(name).equals(delta.path("$defs").path(name))) {
        different.add("$defs/" + name);
      }
    }

    // Then
    assertThat(different).isEmpty();
  }

  @Test
  void shouldDefineTheSessionKeyAndItsSourceIdenticallyInEverySchemaThatCarriesThem() {
    // Given: the raw event's definitions, which every record of a captured request repeats
    JsonNode raw = WireSchemas.schemaTree(WireSchemas.byName("raw-request-event.v1"));
    List<String> names = List.of("session_key", "session_key_source");

    // When
    List<String> carriers = new ArrayList<>();
    List<String> different = new ArrayList<>();
    for (WireSchema schema : WireSchemas.ALL) {
      JsonNode tree = WireSchemas.schemaTree(schema);
      if (!tree.path("properties").has("session_key_source")) {
        continue;
      }
      carriers.add(schema.name());
      for (String name : names) {
        if (!raw.path("properties").path(name).equals(tree.path("properties").path(name))) {
          different.add(schema.name() + " properties/" + name);
        }
        if (!raw.path("$defs").path(name).equals(tree.path("$defs").path(name))) {
          different.add(schema.name() + " $defs/" + name);
        }
      }
    }

    // Then
    assertThat(carriers)
        .containsExactly(
            "raw-request-event.v1",
            "raw-request-event.v2",
            "request-metadata.v1",
            "request-metadata.v2",
            "request-metadata.v3",
            "delta-record.v2",
            "delta-record.v3");
    assertThat(different).isEmpty();
  }

  @Test
  void shouldCatchARecordComponentMissingFromASchema() {
    // Given
    ObjectNode tree =
        (ObjectNode) WireSchemas.schemaTree(WireSchemas.byName("block-index-entry.v1")).deepCopy();
    ((ObjectNode) tree.path("properties")).remove("seq");
    List<String> mismatches = new ArrayList<>();

    // When
    compareRecord(BlockIndexEntry.class, tree, tree, "BlockIndexEntry", mismatches);

    // Then
    assertThat(mismatches)
        .containsExactly(
            "BlockIndexEntry: properties [source, hash, medium, group_idx, copies, token_count,"
                + " block_size, parent_block_hash, lora_id, lora_name, first_stored_ms,"
                + " last_stored_ms, session_id] but components [source, hash, medium, group_idx,"
                + " copies, token_count, block_size, parent_block_hash, lora_id, lora_name,"
                + " first_stored_ms, last_stored_ms, session_id, seq]");
  }

  /**
   * Names that {@code required}, {@code dependentRequired} or a condition use but no schema
   * declares.
   */
  private static List<String> undeclaredNames(JsonNode tree) {
    List<String> undeclared = new ArrayList<>();
    walk(
        tree,
        (node, path, scope) -> {
          List<String> named = new ArrayList<>();
          node.path("required").forEach(name -> named.add(name.asText()));
          node.path("dependentRequired")
              .properties()
              .forEach(
                  e -> {
                    named.add(e.getKey());
                    e.getValue().forEach(name -> named.add(name.asText()));
                  });
          if (scope.branch()) {
            node.path("properties").fieldNames().forEachRemaining(named::add);
          }
          for (String name : named) {
            if (!scope.declared().contains(name)) {
              undeclared.add(path + ": " + name);
            }
          }
        });
    return undeclared;
  }

  // ---------------------------------------------------------------- record ↔ schema comparison

  private static void compareRecord(
      Class<?> type, JsonNode objectSchema, JsonNode root, String where, List<String> out) {
    List<String> components = new ArrayList<>();
    for (RecordComponent component : type.getRecordComponents()) {
      components.add(jsonName(component, where, out));
    }
    List<String> properties = new ArrayList<>();
    objectSchema.path("properties").fieldNames().forEachRemaining(properties::add);
    if (!properties.equals(components)) {
      out.add(where + ": properties " + properties + " but components " + components);
      return;
    }
    expectType(objectSchema, root, "object", where, out);
    if (!objectSchema.path("additionalProperties").isBoolean()
        || objectSchema.path("additionalProperties").asBoolean()) {
      out.add(where + ": a record's schema must be closed (additionalProperties false)");
    }
    for (RecordComponent component : type.getRecordComponents()) {
      String name = jsonName(component, where, out);
      JsonNode property = objectSchema.path("properties").path(name);
      compareValue(component.getGenericType(), property, root, where + "." + name, out);
    }
  }

  private static void compareValue(
      Type javaType, JsonNode schema, JsonNode root, String where, List<String> out) {
    Class<?> raw = rawClass(javaType);
    if (raw == String.class) {
      expectType(schema, root, "string", where, out);
    } else if (raw == Integer.class || raw == int.class) {
      expectType(schema, root, "integer", where, out);
      JsonNode maximum = find(schema, root, "maximum");
      JsonNode constant = find(schema, root, "const");
      boolean bounded =
          (constant != null && constant.canConvertToInt())
              || (maximum != null && maximum.asLong() <= Integer.MAX_VALUE);
      if (!bounded) {
        out.add(where + ": a Java int needs a maximum of at most " + Integer.MAX_VALUE);
      }
    } else if (raw == Long.class || raw == long.class) {
      expectType(schema, root, "integer", where, out);
    } else if (raw == Double.class || raw == double.class) {
      expectType(schema, root, "number", where, out);
    } else if (raw == Boolean.class || raw == boolean.class) {
      expectType(schema, root, "boolean", where, out);
    } else if (List.class.isAssignableFrom(raw)) {
      expectType(schema, root, "array", where, out);
      Type element = ((ParameterizedType) javaType).getActualTypeArguments()[0];
      compareValue(element, resolve(schema, root).path("items"), root, where + "[]", out);
    } else if (Map.class.isAssignableFrom(raw)) {
      expectType(schema, root, "object", where, out);
      Type value = ((ParameterizedType) javaType).getActualTypeArguments()[1];
      compareValue(
          value, resolve(schema, root).path("additionalProperties"), root, where + "{}", out);
    } else if (raw == JsonNode.class) {
      if (schema.isMissingNode()) {
        out.add(where + ": no schema");
      }
    } else if (raw.isRecord()) {
      compareRecord(raw, resolve(schema, root), root, where, out);
    } else if (raw.isSealed() && raw.isAnnotationPresent(JsonTypeInfo.class)) {
      compareSealed(raw, resolve(schema, root), root, where, out);
    } else {
      out.add(where + ": no rule for Java type " + javaType);
    }
  }

  /** A sealed type written with a type property: one conditional branch per subtype. */
  private static void compareSealed(
      Class<?> type, JsonNode schema, JsonNode root, String where, List<String> out) {
    String property = type.getAnnotation(JsonTypeInfo.class).property();
    JsonSubTypes.Type[] subtypes = type.getAnnotation(JsonSubTypes.class).value();
    List<String> names = Arrays.stream(subtypes).map(JsonSubTypes.Type::name).collect(toList());
    List<String> declared = new ArrayList<>();
    schema.path("properties").path(property).path("enum").forEach(n -> declared.add(n.asText()));
    if (!declared.equals(names)) {
      out.add(where + ": " + property + " enum " + declared + " but subtypes " + names);
    }
    for (JsonSubTypes.Type subtype : subtypes) {
      JsonNode branch = null;
      for (JsonNode condition : schema.path("allOf")) {
        if (condition
            .path("if")
            .path("properties")
            .path(property)
            .path("const")
            .asText()
            .equals(subtype.name())) {
          branch = resolve(condition.path("then"), root);
        }
      }
      String at = where + "<" + subtype.name() + ">";
      if (branch == null) {
        out.add(at + ": no if/then branch");
        continue;
      }
      if (!branch.path("properties").path(property).path("const").asText().equals(subtype.name())) {
        out.add(at + ": the branch does not fix " + property + " to " + subtype.name());
      }
      List<String> expected = new ArrayList<>(List.of(property));
      List<String> actual = new ArrayList<>();
      branch.path("properties").fieldNames().forEachRemaining(actual::add);
      for (RecordComponent component : subtype.value().getRecordComponents()) {
        expected.add(jsonName(component, at, out));
      }
      if (!actual.equals(expected)) {
        out.add(at + ": properties " + actual + " but " + property + " and components " + expected);
        continue;
      }
      if (!branch.path("additionalProperties").isBoolean()
          || branch.path("additionalProperties").asBoolean()) {
        out.add(at + ": a subtype's schema must be closed (additionalProperties false)");
      }
      for (RecordComponent component : subtype.value().getRecordComponents()) {
        String name = jsonName(component, at, out);
        compareValue(
            component.getGenericType(),
            branch.path("properties").path(name),
            root,
            at + "." + name,
            out);
      }
    }
  }

  private static String jsonName(RecordComponent component, String where, List<String> out) {
    JsonProperty property = component.getAccessor().getAnnotation(JsonProperty.class);
    if (property == null || property.value().isEmpty()) {
      out.add(where + "." + component.getName() + ": no @JsonProperty name");
      return component.getName();
    }
    return property.value();
  }

  private static void expectType(
      JsonNode schema, JsonNode root, String type, String where, List<String> out) {
    JsonNode declared = find(schema, root, "type");
    if (declared == null || !declared.asText().equals(type)) {
      out.add(where + ": type " + declared + " but the Java type needs " + type);
    }
  }

  /** A keyword of a schema or of the schemas its {@code $ref} chain leads to. */
  private static JsonNode find(JsonNode schema, JsonNode root, String keyword) {
    JsonNode node = schema;
    Set<String> seen = new HashSet<>();
    while (node != null && !node.isMissingNode()) {
      if (node.has(keyword)) {
        return node.get(keyword);
      }
      String ref = node.path("$ref").asText(null);
      if (ref == null || !seen.add(ref)) {
        return null;
      }
      node = root.at(ref.substring(1));
    }
    return null;
  }

  /** The schema at the end of a local {@code $ref} chain. */
  private static JsonNode resolve(JsonNode schema, JsonNode root) {
    JsonNode node = schema;
    while (node.has("$ref")) {
      node = root.at(node.get("$ref").asText().substring(1));
    }
    return node;
  }

  private static Class<?> rawClass(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    throw new IllegalArgumentException("unsupported type " + type);
  }

  // ---------------------------------------------------------------- schema walking

  /**
   * Where a subschema sits. {@code declared} is what the schema of its instance location declares
   * in {@code properties} (empty when it declares nothing); {@code branch} is true for subschemas
   * that apply to the same instance ({@code allOf}, {@code if}/{@code then}/{@code else}, {@code
   * not}, …), whose {@code properties} constrain declared names instead of declaring new ones.
   */
  private record Scope(Set<String> declared, boolean branch) {}

  @FunctionalInterface
  private interface Visitor {
    void visit(JsonNode schema, String path, Scope scope);
  }

  private static void walk(JsonNode root, Visitor visitor) {
    walk(root, "#", null, visitor);
  }

  private static void walk(JsonNode node, String path, Scope parent, Visitor visitor) {
    if (!node.isObject()) {
      return;
    }
    Scope scope = parent;
    if (scope == null) {
      Set<String> declared = new HashSet<>();
      node.path("properties").fieldNames().forEachRemaining(declared::add);
      scope = new Scope(declared, false);
    }
    visitor.visit(node, path, scope);
    Scope branch = new Scope(scope.declared(), true);
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      String keyword = field.getKey();
      JsonNode value = field.getValue();
      String at = path + "/" + keyword;
      if (SAME_INSTANCE_SCHEMA.contains(keyword)) {
        walk(value, at, branch, visitor);
      } else if (SAME_INSTANCE_SCHEMAS.contains(keyword)) {
        for (int i = 0; i < value.size(); i++) {
          walk(value.get(i), at + "/" + i, branch, visitor);
        }
      } else if (keyword.equals("dependentSchemas")) {
        value.properties().forEach(e -> walk(e.getValue(), at + "/" + e.getKey(), branch, visitor));
      } else if (CHILD_SCHEMA.contains(keyword)) {
        walk(value, at, null, visitor);
      } else if (CHILD_SCHEMA_MAPS.contains(keyword)) {
        value.properties().forEach(e -> walk(e.getValue(), at + "/" + e.getKey(), null, visitor));
      } else if (keyword.equals("prefixItems")) {
        for (int i = 0; i < value.size(); i++) {
          walk(value.get(i), at + "/" + i, null, visitor);
        }
      }
    }
  }
}
