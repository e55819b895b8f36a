package io.prefixlog.streams.lookup;

import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.request.RawEventValidator;
import io.prefixlog.core.request.Rejection;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the chunk-hash lookup record of every valid raw request event: validate, render the body,
 * hash its full chunks ({@link ChunkLookups}), forward the record keyed by {@code request_id}.
 * Stateless: nothing is stored, so a replay after a crash writes the same record again, and
 * compaction by {@code request_id} keeps one.
 */
final class ChunkLookupProcessor implements Processor<String, byte[], String, ChunkLookupRecord> {
  private static final Logger LOGGER = LoggerFactory.getLogger(ChunkLookupProcessor.class);

  private final RawEventValidator validator;
  private final ChunkLookups lookups;
  private final ChunkLookupMetrics metrics;
  private ProcessorContext<String, ChunkLookupRecord> context;

  ChunkLookupProcessor(ChunkLookupSupplier.Wiring wiring) {
    this.validator = new RawEventValidator(wiring.config().maxBodyBytes());
    this.lookups = new ChunkLookups(wiring.chunkSizeBytes());
    this.metrics = wiring.metrics();
  }

  @Override
  public void init(ProcessorContext<String, ChunkLookupRecord> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    RawEventValidator.Outcome outcome = validator.validate(record.key(), record.value());
    if (outcome.rejected() != null) {
      // Not a dead letter here, on purpose: the session-delta processor reads the same records
      // with the same validator (same capture limit) and already dead-letters every rejection,
      // with its original bytes. A second letter for one bad input would double the DLQ and
      // prefixlog_dead_letters_total. It is counted as a skip instead, so it is not silent.
      skip(outcome.rejected());
      return;
    }
    ChunkLookupRecord lookup = lookups.of(outcome.accepted());
    context.forward(new Record<>(lookup.requestId(), lookup, record.timestamp()));
    metrics.emitted(lookup);
  }

  private void skip(Rejection rejection) {
    metrics.skipped(rejection.reason());
    Optional<RecordMetadata> origin = context.recordMetadata();
    LOGGER
        .atDebug()
        .setMessage("no chunk lookup for a rejected input")
        .addKeyValue("topic", origin.map(RecordMetadata::topic).orElse(null))
        .addKeyValue("partition", origin.map(RecordMetadata::partition).orElse(null))
        .addKeyValue("offset", origin.map(RecordMetadata::offset).orElse(null))
        .addKeyValue("reason", rejection.reason())
        .log();
  }
}
