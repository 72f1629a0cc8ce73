package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.http.WebFilterTest.Server;
import io.idempotent.http.WebFilterTest.Shop;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Every request buffer the server reads for a protected request is released, whatever the answer: run,
 * replayed, refused as too large (with its length declared, or in chunks cut off half-way), a multipart form,
 * a response passed through, a client gone before the answer. The server's buffers come from an allocator
 * that counts the memory in use; once the server has stopped, none is.
 */
class WebFilterBuffersTest {

  @Test
  void noRequestBufferOutlivesItsRequest() throws Exception {
    CountingAllocator allocator = new CountingAllocator();
    Shop shop = new Shop();
    IdempotencyStore store = CaffeineIdempotencyStore.builder().build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    HttpIdempotencySettings settings = HttpIdempotencySettings.builder().idempotency(idempotency)
        .maxRequestBodyBytes(4096).maxRecordedBodyBytes(1000).build();
    Server server = Server.start(shop.routes(), new IdempotencyWebFilter(settings),
        s -> s.option(ChannelOption.ALLOCATOR, allocator).childOption(ChannelOption.ALLOCATOR, allocator));
    try {
      String key = UUID.randomUUID().toString();
      String body = "{\"note\":\"" + "x".repeat(3000) + "\"}";
      assertThat(server.post("/orders", key, body).statusCode()).isEqualTo(201);
      assertThat(Server.replayed(server.post("/orders", key, body))).isTrue();
      assertThat(server.post("/orders", key(), body + "x".repeat(2000)).statusCode()).isEqualTo(413);
      assertThat(server.rawChunked("/orders", body + "x".repeat(2000), "Idempotency-Key: \"" + key() + "\"")
          .status()).isEqualTo(413);
      assertThat(server.send("POST", "/upload", key(), WebFilterTest.multipart("b", "note", "f.txt", "file"),
          "multipart/form-data; boundary=b").statusCode()).isEqualTo(201);
      assertThat(server.post("/big", key(), body).statusCode()).isEqualTo(200);
      assertThat(server.post("/flaky", key(), body).statusCode()).isEqualTo(500);
      try (Socket socket = new Socket("127.0.0.1", server.port())) {
        OutputStream out = socket.getOutputStream();
        out.write(("POST /delayed HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Idempotency-Key: \"" + key() + "\"\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        assertThat(shop.delayedStarted.await(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(allocator.allocations.get()).as("the server read requests through the counting allocator")
          .isGreaterThan(10);
    } finally {
      server.close();
      store.close();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (allocator.inUse() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(allocator.inUse()).as("bytes of request buffers never released").isZero();
  }

  /** Buffers as Netty's unpooled allocator makes them, counted, and the memory they hold while not released. */
  static final class CountingAllocator extends AbstractByteBufAllocator {
    final AtomicInteger allocations = new AtomicInteger();
    private final UnpooledByteBufAllocator unpooled = new UnpooledByteBufAllocator(true, true);

    CountingAllocator() {
      super(true);
    }

    long inUse() {
      return unpooled.metric().usedHeapMemory() + unpooled.metric().usedDirectMemory();
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      allocations.incrementAndGet();
      return unpooled.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      allocations.incrementAndGet();
      return unpooled.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  private static String key() {
    return UUID.randomUUID().toString();
  }
}
