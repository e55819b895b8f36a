package io.prefixlog.core.kv;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/** The {@code kv-event-batch.v1} JSON Schema (from the schemas jar), as tests check records. */
final class KvBatchSchema {
  private static final JsonSchema SCHEMA = load();

  private KvBatchSchema() {}

  /** The batch as the wire JSON tree. */
  static JsonNode tree(KvEventBatch batch) {
    return Json.mapper().valueToTree(batch);
  }

  /** The batch's wire JSON text. */
  static String json(KvEventBatch batch) {
    try {
      return Json.mapper().writeValueAsString(batch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What the schema says is wrong with the record's JSON; empty when it is valid. */
  static List<String> errors(KvEventBatch batch) {
    return SCHEMA.validate(tree(batch)).stream().map(ValidationMessage::toString).sorted().toList();
  }

  private static JsonSchema load() {
    try (InputStream in =
        Objects.requireNonNull(
            KvBatchSchema.class.getResourceAsStream("/schemas/kv-event-batch.v1.schema.json"),
            "kv-event-batch.v1.schema.json on the class path")) {
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(Json.mapper().readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
