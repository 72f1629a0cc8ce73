package com.example.shop

import io.idempotent.CallOutcome
import io.idempotent.runtime.Idempotency
import io.idempotent.IdempotencyConfigurationException
import io.idempotent.IdempotencyKeyReusedException
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.startCoroutine
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test

class OrdersTest {

    @BeforeEach
    fun install() {
        IdempotencySetup.install()
    }

    @AfterEach
    fun uninstall() {
        Idempotency.uninstall()
    }

    @Test
    fun `a retry replays the first outcome, and the function ran once`() {
        val orders = Orders()

        val first = orders.charge("order-1", 1999, listOf("book", "pen"))
        val retried = orders.charge("order-1", 1999, listOf("book", "pen"))

        assertEquals(1, orders.charges)
        assertEquals(CallOutcome.REPLAYED, Idempotency.lastOutcome())
        assertEquals(first, retried, "the data class read back equals the one returned")
        assertNotSame(first, retried, "the replay is decoded from what the store kept")
    }

    @Test
    fun `a key reused with other arguments is refused`() {
        val orders = Orders()
        orders.charge("order-2", 1999, listOf("book"))

        assertThrows(IdempotencyKeyReusedException::class.java) { orders.charge("order-2", 2500, listOf("book")) }
        assertEquals(1, orders.charges)
    }

    @Test
    fun `a call that leaves out a default argument is protected too`() {
        val orders = Orders()

        assertEquals(Line("order-4", 1), orders.reserve("order-4"))
        assertEquals(Line("order-4", 1), orders.reserve("order-4"))

        assertEquals(1, orders.reserved)
        assertEquals(CallOutcome.REPLAYED, Idempotency.lastOutcome())
    }

    @Test
    fun `validate finds the Kotlin function woven and its result readable`() {
        Idempotency.validate(Orders::class.java)
    }

    @Test
    fun `a suspend function is refused before it runs`() {
        val orders = SuspendingOrders()

        val refused = assertThrows(IdempotencyConfigurationException::class.java) {
            runSuspending { orders.charge("order-3") }
        }
        assertTrue(refused.message!!.contains("suspend"), refused.message)
        assertEquals(0, orders.runs.get())
        assertThrows(IdempotencyConfigurationException::class.java) { Idempotency.validate(SuspendingOrders::class.java) }
    }

    /** Runs [block] to completion on this thread: enough for a function that does not suspend. */
    private fun <T> runSuspending(block: suspend () -> T): T {
        var outcome: Result<T>? = null
        block.startCoroutine(Continuation(EmptyCoroutineContext) { outcome = it })
        return outcome!!.getOrThrow()
    }
}
