package io.prefixlog.archive;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

/**
 * Derives an archive table's Iceberg schema from the Java record of its contract, so that the
 * archive holds no copy of the contracts of its own: a field added to a record becomes a column of
 * a table created afterwards (and, through the sink's schema evolution, of older tables).
 *
 * <p>One column per record component, named by its {@code @JsonProperty} (the name the sink sees in
 * the JSON), in declaration order, every one optional (absent fields are never null in the JSON,
 * but any may be absent). Types follow what the Iceberg sink makes of the JSON: strings and enums
 * are {@code string}; every integer is {@code long}, since the sink reads JSON integers as long
 * whatever the Java width; {@code double} and {@code boolean} stay; a {@code List} is a {@code
 * list}, a {@code Map<String, V>} a {@code map<string, V>}, a nested record a {@code struct}. A
 * polymorphic type (a sealed interface with Jackson's {@code @JsonTypeInfo}, such as the delta ops)
 * is one struct: the type property, then the union of its subtypes' fields, since a list holds one
 * element type and the sink writes every op into it.
 *
 * <p>Field ids are handed out as the hand-written schemas did (a field's nested ids before its own,
 * a list's element id before the element's fields); Iceberg reassigns them when it creates a table,
 * they only have to be unique.
 */
public final class ContractSchemas {
  private final Set<String> omitted;
  private final Set<String> omittedSeen = new HashSet<>();
  private int lastId;

  private ContractSchemas(Set<String> omitted) {
    this.omitted = Set.copyOf(omitted);
  }

  /**
   * The schema of a table archiving {@code contract}: its columns, then {@link
   * ArchivedTopic#KAFKA_TS} (a {@code timestamptz} the connector adds, not part of any contract).
   *
   * @param omitted dotted paths of the JSON fields left out of the table ({@code
   *     events.extra_keys}); each must exist, so an omission never outlives its field
   * @throws IllegalArgumentException when a component has no {@code @JsonProperty} or a type with
   *     no Iceberg counterpart that is not omitted, or an omitted path names no field
   */
  public static Schema tableOf(Class<? extends Record> contract, Set<String> omitted) {
    Objects.requireNonNull(contract, "contract");
    ContractSchemas derivation = new ContractSchemas(omitted);
    List<NestedField> columns = new ArrayList<>(derivation.fieldsOf(contract, ""));
    columns.add(
        NestedField.optional(
            derivation.next(), ArchivedTopic.KAFKA_TS, Types.TimestampType.withZone()));
    Set<String> stale = new TreeSet<>(derivation.omitted);
    stale.removeAll(derivation.omittedSeen);
    if (!stale.isEmpty()) {
      throw new IllegalArgumentException(
          contract.getSimpleName() + " has no field " + String.join(", ", stale) + " to omit");
    }
    return new Schema(columns);
  }

  private int next() {
    return ++lastId;
  }

  private List<NestedField> fieldsOf(Class<?> recordType, String path) {
    List<NestedField> fields = new ArrayList<>();
    for (RecordComponent component : recordType.getRecordComponents()) {
      String name = jsonName(component);
      String fieldPath = path + name;
      if (omitted.contains(fieldPath)) {
        omittedSeen.add(fieldPath);
        continue;
      }
      // The type first: its nested ids come before the field's own, as they always did.
      Type type = typeOf(component.getGenericType(), fieldPath);
      fields.add(NestedField.optional(next(), name, type));
    }
    return fields;
  }

  private static String jsonName(RecordComponent component) {
    JsonProperty property = component.getAccessor().getAnnotation(JsonProperty.class);
    if (property == null) {
      property = component.getAnnotation(JsonProperty.class);
    }
    if (property == null || property.value().isEmpty()) {
      throw new IllegalArgumentException(
          component.getDeclaringRecord().getSimpleName()
              + "."
              + component.getName()
              + " has no @JsonProperty name: the column would not be the JSON field");
    }
    return property.value();
  }

  private Type typeOf(java.lang.reflect.Type javaType, String path) {
    if (javaType instanceof ParameterizedType parameterized) {
      Class<?> raw = (Class<?>) parameterized.getRawType();
      java.lang.reflect.Type[] arguments = parameterized.getActualTypeArguments();
      if (raw == List.class) {
        int elementId = next();
        return Types.ListType.ofOptional(elementId, typeOf(arguments[0], path));
      }
      if (raw == Map.class && arguments[0] == String.class) {
        int keyId = next();
        int valueId = next();
        return Types.MapType.ofOptional(
            keyId, valueId, Types.StringType.get(), typeOf(arguments[1], path));
      }
    } else if (javaType instanceof Class<?> type) {
      Type scalar = scalarOf(type);
      if (scalar != null) {
        return scalar;
      }
      if (type.isRecord()) {
        return Types.StructType.of(fieldsOf(type, path + "."));
      }
      if (type.isSealed() && type.isAnnotationPresent(JsonTypeInfo.class)) {
        return unionOf(type, path + ".");
      }
    }
    throw new IllegalArgumentException(
        "no Iceberg type for " + path + " (" + javaType.getTypeName() + ")");
  }

  /** The scalar column type of a Java type, or null when it is not a scalar. */
  private static Type scalarOf(Class<?> type) {
    if (type == String.class || type.isEnum()) {
      return Types.StringType.get();
    }
    if (type == long.class
        || type == Long.class
        || type == int.class
        || type == Integer.class
        || type == short.class
        || type == Short.class) {
      return Types.LongType.get();
    }
    if (type == double.class || type == Double.class) {
      return Types.DoubleType.get();
    }
    if (type == boolean.class || type == Boolean.class) {
      return Types.BooleanType.get();
    }
    return null;
  }

  /**
   * One struct for a polymorphic type: its type property (a string), then the fields of each
   * subtype in the order {@code @JsonSubTypes} lists them (or the permitted subclasses'), a name
   * shared by two subtypes once.
   */
  private Type unionOf(Class<?> sealed, String path) {
    String typeProperty = sealed.getAnnotation(JsonTypeInfo.class).property();
    List<Class<?>> subtypes = new ArrayList<>();
    JsonSubTypes named = sealed.getAnnotation(JsonSubTypes.class);
    if (named != null) {
      for (JsonSubTypes.Type subtype : named.value()) {
        subtypes.add(subtype.value());
      }
    } else {
      subtypes.addAll(List.of(sealed.getPermittedSubclasses()));
    }
    Map<String, NestedField> union = new LinkedHashMap<>();
    union.put(typeProperty, NestedField.optional(next(), typeProperty, Types.StringType.get()));
    for (Class<?> subtype : subtypes) {
      if (!subtype.isRecord()) {
        throw new IllegalArgumentException(
            "no Iceberg type for " + path + " subtype " + subtype.getName() + " (not a record)");
      }
      for (NestedField field : fieldsOf(subtype, path)) {
        NestedField earlier = union.putIfAbsent(field.name(), field);
        if (earlier != null && !earlier.type().equals(field.type())) {
          throw new IllegalArgumentException(
              path
                  + field.name()
                  + " is "
                  + earlier.type()
                  + " in one subtype of "
                  + sealed.getSimpleName()
                  + " and "
                  + field.type()
                  + " in another");
        }
      }
    }
    return Types.StructType.of(List.copyOf(union.values()));
  }
}
