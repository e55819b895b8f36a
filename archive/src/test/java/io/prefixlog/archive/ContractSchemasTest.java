package io.prefixlog.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The derivation rules of {@link ContractSchemas}, on small contracts of its own. */
class ContractSchemasTest {
  enum Colour {
    RED
  }

  record Scalars(
      @JsonProperty("a_string") String aString,
      @JsonProperty("an_enum") Colour anEnum,
      @JsonProperty("an_int") int anInt,
      @JsonProperty("a_boxed_int") Integer aBoxedInt,
      @JsonProperty("a_long") Long aLong,
      @JsonProperty("a_double") double aDouble,
      @JsonProperty("a_flag") Boolean aFlag) {}

  record Nested(
      @JsonProperty("tags") Map<String, String> tags,
      @JsonProperty("names") List<String> names,
      @JsonProperty("inner") Scalars inner) {}

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "kind")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = Shape.Square.class, name = "square"),
    @JsonSubTypes.Type(value = Shape.Circle.class, name = "circle")
  })
  sealed interface Shape {
    record Square(@JsonProperty("side") int side, @JsonProperty("label") String label)
        implements Shape {}

    record Circle(@JsonProperty("radius") double radius, @JsonProperty("label") String label)
        implements Shape {}
  }

  record Drawing(@JsonProperty("shapes") List<Shape> shapes) {}

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
  sealed interface Clash {
    record One(@JsonProperty("size") int size) implements Clash {}

    record Two(@JsonProperty("size") String size) implements Clash {}
  }

  record Clashing(@JsonProperty("items") List<Clash> items) {}

  record Unnamed(@JsonProperty("named") String named, String unnamed) {}

  record Opaque(@JsonProperty("id") String id, @JsonProperty("blob") JsonNode blob) {}

  @Test
  void shouldMapStringsAndEnumsToStringAndEveryIntegerToLong() {
    // Given
    Class<Scalars> contract = Scalars.class;

    // When
    String schema = ContractSchemas.tableOf(contract, Set.of()).asStruct().toString();

    // Then
    assertThat(schema)
        .isEqualTo(
            "struct<1: a_string: optional string, 2: an_enum: optional string, "
                + "3: an_int: optional long, 4: a_boxed_int: optional long, "
                + "5: a_long: optional long, 6: a_double: optional double, "
                + "7: a_flag: optional boolean, 8: kafka_ts: optional timestamptz>");
  }

  @Test
  void shouldNumberNestedFieldsBeforeTheFieldHoldingThem() {
    // Given
    Class<Nested> contract = Nested.class;

    // When
    String schema = ContractSchemas.tableOf(contract, Set.of()).asStruct().toString();

    // Then
    assertThat(schema)
        .isEqualTo(
            "struct<3: tags: optional map<string, string>, 5: names: optional list<string>, "
                + "13: inner: optional struct<6: a_string: optional string, "
                + "7: an_enum: optional string, 8: an_int: optional long, "
                + "9: a_boxed_int: optional long, 10: a_long: optional long, "
                + "11: a_double: optional double, 12: a_flag: optional boolean>, "
                + "14: kafka_ts: optional timestamptz>");
  }

  @Test
  void shouldMakeOneStructOfAPolymorphicTypeWithTheUnionOfItsSubtypesFields() {
    // Given
    Class<Drawing> contract = Drawing.class;

    // When
    String schema = ContractSchemas.tableOf(contract, Set.of()).asStruct().toString();

    // Then: the type property first, then the subtypes' fields in @JsonSubTypes order, once each
    assertThat(schema)
        .isEqualTo(
            "struct<7: shapes: optional list<struct<2: kind: optional string, "
                + "3: side: optional long, 4: label: optional string, "
                + "5: radius: optional double>>, 8: kafka_ts: optional timestamptz>");
  }

  @Test
  void shouldRejectASubtypeFieldOfTwoTypes() {
    // Given
    Class<Clashing> contract = Clashing.class;

    // When / Then
    assertThatThrownBy(() -> ContractSchemas.tableOf(contract, Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("items.size is long in one subtype of Clash and string in another");
  }

  @Test
  void shouldRejectAComponentWithoutItsJsonName() {
    // Given
    Class<Unnamed> contract = Unnamed.class;

    // When / Then
    assertThatThrownBy(() -> ContractSchemas.tableOf(contract, Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Unnamed.unnamed has no @JsonProperty name: the column would not be the JSON field");
  }

  @Test
  void shouldRejectAnOpaqueFieldUnlessItIsOmitted() {
    // Given
    Class<Opaque> contract = Opaque.class;

    // When
    String omitted = ContractSchemas.tableOf(contract, Set.of("blob")).asStruct().toString();

    // Then
    assertThat(omitted)
        .isEqualTo("struct<1: id: optional string, 2: kafka_ts: optional timestamptz>");
    assertThatThrownBy(() -> ContractSchemas.tableOf(contract, Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no Iceberg type for blob (com.fasterxml.jackson.databind.JsonNode)");
  }

  @Test
  void shouldRejectAnOmissionOfAFieldTheContractDoesNotHave() {
    // Given: the opaque field omitted, and a field the contract no longer has
    Set<String> omitted = Set.of("blob", "shape");

    // When / Then
    assertThatThrownBy(() -> ContractSchemas.tableOf(Opaque.class, omitted))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Opaque has no field shape to omit");
  }
}
