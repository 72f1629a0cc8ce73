/**
 * The annotation and the types its callers see ({@code io.idempotent}), the entry points and the aspect
 * applications weave with ({@code io.idempotent.runtime}), the store SPI and the layered store. The engine
 * and its helpers ({@code io.idempotent.internal}) are exported only to the project's own modules that
 * need a piece of them: the Redis store (the exact UTF-8 of its keys, {@code io.idempotent.internal.text})
 * and the store contract kit (the stored key of a call). Applications that weave on the class path see the same
 * packages as API; see docs/DESIGN.md, "API surface".
 */
// "module": the modules named by the qualified export are not on this module's path when it is compiled;
// "requires-automatic", "requires-transitive-automatic": aspectjrt is an automatic module, but its name
// is fixed by its manifest
@SuppressWarnings({"module", "requires-automatic", "requires-transitive-automatic"})
module io.idempotent {
  // woven code calls the AspectJ runtime, and JsonCodec.customized hands out Jackson's mapper builder
  requires transitive org.aspectj.runtime;
  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.annotation;
  requires com.fasterxml.jackson.datatype.jdk8;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires com.fasterxml.jackson.module.paramnames;
  // the @Idempotent check runs inside a compiler, which brings this module; the library never needs it
  requires static java.compiler;
  // the nullness annotations are read by tools; the library runs without them
  requires static org.jspecify;
  // only calls that return a Mono need Reactor (docs/REACTIVE.md); the library runs without it
  requires static reactor.core;
  requires static org.reactivestreams;

  exports io.idempotent;
  exports io.idempotent.spi;
  exports io.idempotent.runtime;
  exports io.idempotent.layered;
  exports io.idempotent.internal to io.idempotent.testkit;
  exports io.idempotent.internal.text to io.idempotent.redis;

  uses io.idempotent.spi.IdempotencyStoreProvider;
  provides io.idempotent.spi.IdempotencyStoreProvider with io.idempotent.layered.LayeredStoreProvider;
  provides javax.annotation.processing.Processor with io.idempotent.internal.IdempotentProcessor;
}
