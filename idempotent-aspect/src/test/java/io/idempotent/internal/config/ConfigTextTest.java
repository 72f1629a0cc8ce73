package io.idempotent.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigTextTest {

  @Test
  void duration_isoText_isParsedAfterTrimming() {
    assertThat(ConfigText.duration(" PT1M30S ", "Property idempotent.lease")).isEqualTo(Duration.ofSeconds(90));
    assertThat(ConfigText.duration("P2D", "Property idempotent.ttl")).isEqualTo(Duration.ofDays(2));
  }

  @Test
  void duration_nullOrBlank_isNull() {
    assertThat(ConfigText.duration(null, "Property idempotent.ttl")).isNull();
    assertThat(ConfigText.duration("  ", "Property idempotent.ttl")).isNull();
  }

  @Test
  void duration_badText_namesWhereItCameFromAndTheValue() {
    assertThatThrownBy(() -> ConfigText.duration("24h", "Property idempotent.ttl"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessage("Property idempotent.ttl is '24h'; expected an ISO-8601 duration such as PT30S or PT24H");
  }

  @Test
  void bool_trueOrFalseInAnyCase_andBlankIsNull() {
    assertThat(ConfigText.bool("TRUE", "Property idempotent.enabled")).isTrue();
    assertThat(ConfigText.bool(" false ", "Property idempotent.enabled")).isFalse();
    assertThat(ConfigText.bool(" ", "Property idempotent.enabled")).isNull();
    assertThat(ConfigText.bool(null, "Property idempotent.enabled")).isNull();
  }

  @Test
  void bool_anythingElse_namesWhereItCameFromAndTheValue() {
    assertThatThrownBy(() -> ConfigText.bool("yes", "Property idempotent.redis.ssl"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessage("Property idempotent.redis.ssl is 'yes'; expected true or false");
  }
}
