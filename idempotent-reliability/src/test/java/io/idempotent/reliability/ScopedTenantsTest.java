package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code @Idempotent(scope = "#tenant")} keeps tenants apart on every store: the same order id sent
 * by many tenants, concurrently and repeatedly, runs once per tenant, and no tenant ever receives
 * another tenant's result, including tenants and keys chosen so that a naive "tenant|key" join would
 * collide.
 */
class ScopedTenantsTest {

  private final HostileInputService service = new HostileInputService();

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.StoreKind#all")
  void sameOrderIdsInManyTenants_runOncePerTenant_andNeverReplayAnotherTenantsResult(StoreKind kind)
      throws Exception {
    try (StoreKind.Opened opened = kind.open()) {
      Idempotency.install(IdempotencyConfig.builder().store(opened.store()).build());
      String run = Calls.newRun();
      List<String> tenants = List.of(run + "A", run + "B", run + "a", run + "A ", run + "X|", run + "X",
          run + "1:X", run + "X-", run + "\u0000", run + "t'; DELETE FROM rel_idempotency; --");
      List<String> orders = List.of("o-1", "|o-1", "o-1|", "X|o-1", "-|o-1", "1:o-1", "O-1", "o-1 ");
      List<String[]> pairs = new ArrayList<>();
      for (String t : tenants) {
        for (String o : orders) {
          pairs.add(new String[] {t, o});
        }
      }
      int threads = 6;
      int copies = 3;
      Calls.Sent sent = Calls.sendConcurrently(pairs.size(), copies, threads, 7, i -> {
        String tenant = pairs.get(i)[0];
        String order = pairs.get(i)[1];
        String result = service.placeOrder(tenant, order);
        return result.equals(tenant + "#" + order) ? null
            : "tenant " + Calls.printable(tenant) + " order " + Calls.printable(order) + " got " + Calls.printable(result);
      });

      assertThat(sent.mismatches()).as("results of other tenants").isEmpty();
      assertThat(service.runs).as("one execution per (tenant, order)").hasValue(pairs.size());

      Figures.of("ScopedTenantsTest[" + kind + "]")
          .set("threads", threads)
          .set("keys", pairs.size())
          .set("duplicatesSent", (copies - 1L) * pairs.size())
          .set("executions", service.runs.get())
          .set("badInputs", tenants.size() + orders.size())
          .set("crossTenantReplays", sent.mismatches().size())
          .set("duplicated", service.runs.get() - pairs.size())
          .report();
    }
  }
}
