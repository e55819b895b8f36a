package io.prefixlog.systemtests.pipeline;

import io.prefixlog.streams.topology.PrefixlogTopology;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A {@code processor.wrapper.class} for a stream app in a child JVM: the session-delta processor
 * throws once, at the forward of the delta of the raw event whose request id is {@value
 * #REQUEST_ID} (pass-through {@code PREFIXLOG_KAFKA_PREFIXLOG_FAULT_REQUEST_ID}), after it has
 * written the turn's base, state and dedup entry. Once per process: the replacement thread replays
 * the turn without it.
 */
public final class MidTurnFault implements ProcessorWrapper {
  static final String REQUEST_ID = "prefixlog.fault.request.id";

  private final AtomicBoolean fired = new AtomicBoolean();
  private String requestId;

  @Override
  public void configure(Map<String, ?> configs) {
    this.requestId = Objects.requireNonNull((String) configs.get(REQUEST_ID), REQUEST_ID);
  }

  @Override
  public <KIn, VIn, KOut, VOut>
      WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
          String processorName, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
    if (!processorName.equals(PrefixlogTopology.SESSION_DELTA_PROCESSOR)) {
      return ProcessorWrapper.asWrapped(supplier);
    }
    return new WrappedProcessorSupplier<>() {
      @Override
      public Set<StoreBuilder<?>> stores() {
        return supplier.stores();
      }

      @Override
      public Processor<KIn, VIn, KOut, VOut> get() {
        return new Faulty<>(supplier.get());
      }
    };
  }

  @Override
  public <KIn, VIn, VOut>
      WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> wrapFixedKeyProcessorSupplier(
          String processorName, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
    return ProcessorWrapper.asWrappedFixedKey(supplier);
  }

  private final class Faulty<KIn, VIn, KOut, VOut> implements Processor<KIn, VIn, KOut, VOut> {
    private final Processor<KIn, VIn, KOut, VOut> inner;
    private boolean armed;

    Faulty(Processor<KIn, VIn, KOut, VOut> inner) {
      this.inner = inner;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void init(ProcessorContext<KOut, VOut> context) {
      inner.init(
          (ProcessorContext<KOut, VOut>)
              Proxy.newProxyInstance(
                  ProcessorContext.class.getClassLoader(),
                  new Class<?>[] {ProcessorContext.class},
                  (self, method, args) -> {
                    if (armed
                        && method.getName().equals("forward")
                        && args.length == 2
                        && PrefixlogTopology.SESSION_DELTAS_SINK.equals(args[1])
                        && fired.compareAndSet(false, true)) {
                      throw new IllegalStateException("injected fault mid-turn");
                    }
                    try {
                      return method.invoke(context, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  }));
    }

    @Override
    public void process(Record<KIn, VIn> record) {
      armed =
          !fired.get()
              && record.value() instanceof byte[] bytes
              && new String(bytes, StandardCharsets.UTF_8)
                  .contains("\"request_id\":\"" + requestId + "\"");
      try {
        inner.process(record);
      } finally {
        armed = false;
      }
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
