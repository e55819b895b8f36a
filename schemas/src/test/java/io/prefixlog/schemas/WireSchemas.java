package io.prefixlog.schemas;

import static java.util.stream.Collectors.toList;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaId;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.RequestMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The wire types' JSON Schemas (main resources, {@code schemas/}) and their golden examples (test
 * resources, {@code golden/<schema name>/}), as the tests read them.
 */
final class WireSchemas {

  /**
   * One schema file and the record it describes.
   *
   * @param current false for an earlier version that readers still accept but the record no longer
   *     mirrors field for field
   */
  record WireSchema(String name, Class<? extends Record> type, boolean current) {
    WireSchema(String name, Class<? extends Record> type) {
      this(name, type, true);
    }

    String fileName() {
      return name + ".schema.json";
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Every top-level wire type, one schema each. */
  static final List<WireSchema> ALL =
      List.of(
          new WireSchema("raw-request-event.v1", RawRequestEvent.class),
          new WireSchema("raw-request-event.v2", RawRequestEvent.class, false),
          new WireSchema("request-metadata.v1", RequestMetadata.class, false),
          new WireSchema("request-metadata.v2", RequestMetadata.class, false),
          new WireSchema("request-metadata.v3", RequestMetadata.class),
          new WireSchema("delta-record.v2", DeltaRecord.class, false),
          new WireSchema("delta-record.v3", DeltaRecord.class),
          new WireSchema("chunk-lookup.v1", ChunkLookupRecord.class, false),
          new WireSchema("chunk-lookup.v2", ChunkLookupRecord.class),
          new WireSchema("kv-event-batch.v1", KvEventBatch.class),
          new WireSchema("block-index-entry.v1", BlockIndexEntry.class),
          new WireSchema("source-stats.v1", SourceStats.class),
          new WireSchema("dead-letter.v1", DeadLetter.class),
          new WireSchema("erase-request.v1", EraseRequest.class),
          new WireSchema("erasure-ack.v1", ErasureAck.class));

  /** A golden example file. */
  record Golden(WireSchema schema, Path path) {
    String fileName() {
      return path.getFileName().toString();
    }

    byte[] bytes() {
      try {
        return Files.readAllBytes(path);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    JsonNode tree() {
      return readTree(bytes());
    }

    @Override
    public String toString() {
      return schema.name() + "/" + fileName();
    }
  }

  private static final ObjectMapper PLAIN = new ObjectMapper();
  private static final JsonSchemaFactory FACTORY =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);

  private WireSchemas() {}

  static WireSchema byName(String name) {
    return ALL.stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no schema named " + name));
  }

  /** The schema file as a JSON tree. */
  static JsonNode schemaTree(WireSchema schema) {
    try (InputStream in = resource("/schemas/" + schema.fileName()).openStream()) {
      return PLAIN.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The compiled validator of a schema file. */
  static JsonSchema validator(WireSchema schema) {
    return FACTORY.getSchema(schemaTree(schema));
  }

  /** The draft 2020-12 meta-schema, as the validator library bundles it. */
  static JsonSchema metaSchema() {
    return FACTORY.getSchema(SchemaLocation.of(SchemaId.V202012));
  }

  /** Validation errors of an instance, in a stable order. */
  static List<ValidationMessage> errors(WireSchema schema, JsonNode instance) {
    Set<ValidationMessage> messages = validator(schema).validate(instance);
    return messages.stream()
        .sorted(Comparator.comparing(ValidationMessage::toString))
        .collect(toList());
  }

  static JsonNode readTree(byte[] json) {
    try {
      return PLAIN.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every schema file under {@code schemas/} in the main resources. */
  static List<String> schemaFileNames() {
    return list(dir("/schemas")).map(p -> p.getFileName().toString()).sorted().collect(toList());
  }

  /** Every golden directory name under {@code golden/}. */
  static List<String> goldenDirectoryNames() {
    return list(dir("/golden")).map(p -> p.getFileName().toString()).sorted().collect(toList());
  }

  static List<Golden> valid() {
    return goldens("valid-");
  }

  static List<Golden> invalid() {
    return goldens("invalid-");
  }

  static List<Golden> valid(WireSchema schema) {
    return valid().stream().filter(g -> g.schema().equals(schema)).collect(toList());
  }

  private static List<Golden> goldens(String prefix) {
    return ALL.stream()
        .flatMap(
            schema ->
                list(dir("/golden/" + schema.name()))
                    .filter(p -> p.getFileName().toString().startsWith(prefix))
                    .sorted()
                    .map(p -> new Golden(schema, p)))
        .collect(toList());
  }

  private static Stream<Path> list(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.collect(toList()).stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path dir(String name) {
    try {
      return Path.of(resource(name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static URL resource(String name) {
    URL url = WireSchemas.class.getResource(name);
    if (url == null) {
      throw new IllegalStateException("missing resource " + name);
    }
    return url;
  }
}
