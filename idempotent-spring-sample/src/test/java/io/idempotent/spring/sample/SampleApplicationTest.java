package io.idempotent.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.runtime.Idempotency;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The sample application on a real embedded Tomcat and a real database (H2 and PostgreSQL, one subclass
 * each): the HTTP filter, a self-invoked private method, a transactional method declared so and a
 * retried one, each counted in the database.
 *
 * <p>Each subclass's application is closed when its tests are done ({@code @DirtiesContext}): the aspect's
 * configuration is global to the JVM, and each application installs its own at start-up.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
    "sample.settlement.cron=-", // no settlement job here: ScheduledJobAcrossInstancesTest is about it
    "sample.instance=test",
    "spring.main.banner-mode=off",
    "logging.level.root=warn"})
@DirtiesContext
abstract class SampleApplicationTest {

  @LocalServerPort
  int port;

  @Autowired
  Orders orders;

  @Autowired
  Payments payments;

  @Autowired
  JdbcTemplate jdbc;

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> postOrder(String key, String item, int quantity) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"" + item + "\",\"quantity\":" + quantity + "}"));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** An item no other test orders, with {@code available} in stock. */
  private String stockedItem(int available) {
    String item = "item-" + UUID.randomUUID();
    orders.restock(item, available);
    return item;
  }

  private int ordersOf(String item) {
    return jdbc.queryForObject("SELECT COUNT(*) FROM shop_order WHERE item = ?", Integer.class, item);
  }

  private int stockOf(String item) {
    return jdbc.queryForObject("SELECT available FROM shop_stock WHERE item = ?", Integer.class, item);
  }

  /** The state of the idempotency record of {@code key}, as the database has it; null when there is none. */
  private String recordState(String key) {
    return jdbc.query("SELECT state FROM idempotency_record WHERE idempotency_key LIKE ?",
        rs -> rs.next() ? rs.getString(1) : null, "%" + key);
  }

  @Test
  void post_sameKeyTwice_replaysTheFirstResponse() throws Exception {
    String item = stockedItem(10);
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = postOrder(key, item, 2);
    HttpResponse<String> retry = postOrder(key, item, 2);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(retry.body()).isEqualTo(first.body()).contains(item); // the same order id, the same time
    assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
    assertThat(ordersOf(item)).isEqualTo(1);
    assertThat(stockOf(item)).isEqualTo(8);
  }

  @Test
  void post_badQuantity_isAProblemDetail_recordedAndReplayed() throws Exception {
    String item = stockedItem(10);
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = postOrder(key, item, 0);
    HttpResponse<String> retry = postOrder(key, item, 0);

    assertThat(first.statusCode()).isEqualTo(400);
    assertThat(first.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    assertThat(first.body()).contains("an order needs at least 1");
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(retry.statusCode()).isEqualTo(400);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(ordersOf(item)).isZero();
  }

  @Test
  void everyCallIsTimedByOutcome_inTheActuatorsMetrics() throws Exception {
    String item = stockedItem(10);
    String key = UUID.randomUUID().toString();
    String name = "http"; // the filter's namespace
    double executedBefore = callCount(name, "executed");
    double replayedBefore = callCount(name, "replayed");

    postOrder(key, item, 1);
    postOrder(key, item, 1);
    postOrder(key, item, 1);

    assertThat(callCount(name, "executed") - executedBefore).isEqualTo(1);
    assertThat(callCount(name, "replayed") - replayedBefore).isEqualTo(2);
    HttpResponse<String> all = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/actuator/metrics/idempotent.calls")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(all.body()).contains("\"outcome\"", "\"executed\"", "\"replayed\"", "\"store\"");
  }

  /** The count of {@code idempotent.calls} with this name and outcome, from {@code /actuator/metrics}; 0 if none. */
  private double callCount(String name, String outcome) throws IOException, InterruptedException {
    String query = "tag=name:" + java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8)
        + "&tag=outcome:" + outcome;
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + port + "/actuator/metrics/idempotent.calls?" + query)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() == 404) {
      return 0;
    }
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    java.util.regex.Matcher count = java.util.regex.Pattern
        .compile("\\{\"statistic\":\"COUNT\",\"value\":([0-9.eE+-]+)\\}").matcher(response.body());
    assertThat(count.find()).as(response.body()).isTrue();
    return Double.parseDouble(count.group(1));
  }

  @Test
  void post_sameKeyOtherBody_isRefusedWith422() throws Exception {
    String item = stockedItem(10);
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = postOrder(key, item, 2);
    HttpResponse<String> other = postOrder(key, item, 3);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    assertThat(ordersOf(item)).isEqualTo(1);
    assertThat(stockOf(item)).isEqualTo(8);
  }

  @Test
  void post_withoutKey_isRefusedWith400_andPlacesNothing() throws Exception {
    String item = stockedItem(10);

    HttpResponse<String> response = postOrder(null, item, 2);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body()).contains("Idempotency-Key");
    assertThat(ordersOf(item)).isZero();
  }

  @Test
  void post_outOfStock_is409AndNotRecorded_soTheSameKeyPlacesTheOrderOnceRestocked() throws Exception {
    String item = stockedItem(1);
    String key = UUID.randomUUID().toString();

    HttpResponse<String> refused = postOrder(key, item, 2);
    orders.restock(item, 5);
    HttpResponse<String> retry = postOrder(key, item, 2);

    assertThat(refused.statusCode()).isEqualTo(409);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(ordersOf(item)).isEqualTo(1);
    assertThat(stockOf(item)).isEqualTo(4);
  }

  @Test
  void place_theSelfInvokedPrivateMethod_runsOncePerOrderId() {
    String item = stockedItem(10);
    String orderId = UUID.randomUUID().toString();

    Receipt first = orders.place(orderId, item, 1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    Receipt again = orders.place(orderId, item, 1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    Receipt other = orders.place(UUID.randomUUID().toString(), item, 1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);

    assertThat(again).isEqualTo(first);
    assertThat(other.orderId()).isNotEqualTo(first.orderId());
    assertThat(ordersOf(item)).isEqualTo(2);
    assertThat(stockOf(item)).isEqualTo(8);
  }

  @Test
  void checkout_theOutcomeCommitsWithTheOrderRow_andARetryReplays() {
    String item = stockedItem(5);
    String orderId = UUID.randomUUID().toString();

    Receipt first = orders.checkout(orderId, item, 2);
    assertThat(recordState(orderId)).isEqualTo("COMPLETED");
    Receipt retry = orders.checkout(orderId, item, 2);

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(retry).isEqualTo(first);
    assertThat(ordersOf(item)).isEqualTo(1);
    assertThat(stockOf(item)).isEqualTo(3);
  }

  @Test
  void checkout_outOfStockAfterThePlacement_rollsBackTheRowsAndTheOutcome_andTheRetryRuns() {
    String item = stockedItem(1);
    String orderId = UUID.randomUUID().toString();

    assertThatThrownBy(() -> orders.checkout(orderId, item, 2)).isInstanceOf(OutOfStockException.class);

    assertThat(ordersOf(item)).isZero(); // the order row, the stock and the outcome rolled back together
    assertThat(stockOf(item)).isEqualTo(1);
    assertThat(recordState(orderId)).isNull(); // the claim was released once the transaction had rolled back

    orders.restock(item, 5);
    Receipt retry = orders.checkout(orderId, item, 2);

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(retry.orderId()).isEqualTo(orderId);
    assertThat(ordersOf(item)).isEqualTo(1);
    assertThat(stockOf(item)).isEqualTo(4);
    assertThat(recordState(orderId)).isEqualTo("COMPLETED");
  }

  @Test
  void payAndConfirm_aRetryAfterAFailedChargeCharges_aRetryAfterASuccessfulOneReplaysIt() {
    String paymentId = UUID.randomUUID().toString();
    int charged = payments.provider().succeeded();
    int confirmed = payments.confirmations().succeeded();
    payments.provider().failNext(1); // attempt 1: the charge fails, its claim is released
    payments.confirmations().failNext(1); // attempt 2: charged, then the confirmation fails; attempt 3 replays

    String receipt = payments.payAndConfirm(paymentId, 1999);

    assertThat(receipt).endsWith("1999 cents for " + paymentId);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED); // the third attempt's charge
    assertThat(payments.provider().succeeded() - charged).isEqualTo(1);
    assertThat(payments.confirmations().succeeded() - confirmed).isEqualTo(1);
    assertThat(recordState(paymentId)).isEqualTo("COMPLETED");
  }
}
