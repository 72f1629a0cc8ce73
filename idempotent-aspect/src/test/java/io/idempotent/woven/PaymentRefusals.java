package io.idempotent.woven;

/** Final exceptions of a payment application, as ordinary applications write them. */
public final class PaymentRefusals {

  private PaymentRefusals() {}

  /** Formats its own message from a code it keeps. */
  public static class CardDeclined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;

    public CardDeclined(String code) {
      super("card declined: " + code);
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** An application's subclass of a JDK exception (a final type may be declared as the JDK's). */
  public static class InvalidCoupon extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidCoupon(String message) {
      super(message);
    }
  }
}
