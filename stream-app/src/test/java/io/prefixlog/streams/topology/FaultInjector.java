package io.prefixlog.streams.topology;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A {@code processor.wrapper.class} that makes the session-delta processor fail once, on the raw
 * event of one request id, at one point of its work: {@value #AT_STATE_READ} (its first read of the
 * session state, before anything is written) or {@value #AT_DELTA_FORWARD} (the forward of the
 * delta, after the stores were written). Configured through the pass-throughs {@code
 * PREFIXLOG_KAFKA_PREFIXLOG_FAULT_REQUEST_ID} and {@code PREFIXLOG_KAFKA_PREFIXLOG_FAULT_AT}.
 */
public final class FaultInjector implements ProcessorWrapper {
  static final String REQUEST_ID = "prefixlog.fault.request.id";
  static final String AT = "prefixlog.fault.at";
  static final String AT_STATE_READ = "state-read";
  static final String AT_DELTA_FORWARD = "delta-forward";
  static final String MESSAGE = "injected fault";

  private final AtomicBoolean fired = new AtomicBoolean();
  private String requestId;
  private String at;

  @Override
  public void configure(Map<String, ?> configs) {
    this.requestId = Objects.requireNonNull((String) configs.get(REQUEST_ID), REQUEST_ID);
    this.at = Objects.requireNonNull((String) configs.get(AT), AT);
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

  /** The processor, given a context whose stores and forwards fail once while armed. */
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
              proxy(
                  ProcessorContext.class,
                  context,
                  (method, args) -> {
                    if (method.getName().equals("forward")
                        && args.length == 2
                        && PrefixlogTopology.SESSION_DELTAS_SINK.equals(args[1])) {
                      strike(AT_DELTA_FORWARD);
                    }
                    if (method.getName().equals("getStateStore")
                        && args[0].equals(io.prefixlog.streams.session.SessionStores.STATE)) {
                      KeyValueStore<?, ?> store = context.getStateStore((String) args[0]);
                      return proxy(
                          KeyValueStore.class,
                          store,
                          (storeMethod, storeArgs) -> {
                            if (storeMethod.getName().equals("get")) {
                              strike(AT_STATE_READ);
                            }
                            return null;
                          });
                    }
                    return null;
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

    private void strike(String point) {
      if (armed && at.equals(point) && fired.compareAndSet(false, true)) {
        throw new IllegalStateException(MESSAGE + " at " + point);
      }
    }
  }

  /** Hooks a method call: returns a replacement result, or null to call the target. */
  private interface Hook {
    Object before(Method method, Object[] args);
  }

  private static Object proxy(Class<?> type, Object target, Hook hook) {
    InvocationHandler handler =
        (self, method, args) -> {
          Object[] actual = args == null ? new Object[0] : args;
          Object replaced = hook.before(method, actual);
          if (replaced != null) {
            return replaced;
          }
          try {
            return method.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
  }
}
