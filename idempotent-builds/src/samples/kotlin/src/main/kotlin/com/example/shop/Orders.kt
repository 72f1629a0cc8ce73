package com.example.shop

import com.fasterxml.jackson.module.kotlin.kotlinModule
import io.idempotent.runtime.Idempotency
import io.idempotent.runtime.IdempotencyConfig
import io.idempotent.runtime.JsonCodec
import io.idempotent.Idempotent
import io.idempotent.caffeine.CaffeineIdempotencyStore
import io.idempotent.spi.ResultCodec
import java.util.concurrent.atomic.AtomicInteger

data class Line(val sku: String, val quantity: Int = 1)

data class Receipt(val orderId: String, val cents: Long, val lines: List<Line>, val note: String? = null)

/** A Kotlin class and function, woven by ajc after kotlinc compiled them. */
class Orders {
    private val runs = AtomicInteger()

    /** How many times [charge] ran. */
    val charges: Int
        get() = runs.get()

    @Idempotent(key = "#orderId")
    fun charge(orderId: String, cents: Long, skus: List<String>): Receipt {
        runs.incrementAndGet()
        return Receipt(orderId, cents, skus.map { Line(it) })
    }

    private val reservations = AtomicInteger()

    /** How many times [reserve] ran. */
    val reserved: Int
        get() = reservations.get()

    /** Called without [quantity], it runs through the synthetic reserve$default, which calls this method. */
    @Idempotent(key = "#orderId")
    fun reserve(orderId: String, quantity: Int = 1): Line {
        reservations.incrementAndGet()
        return Line(orderId, quantity)
    }
}

/** A suspend function compiles to a method that takes a Continuation and returns Object: not supported. */
class SuspendingOrders {
    val runs = AtomicInteger()

    @Idempotent(key = "#orderId")
    suspend fun charge(orderId: String): Receipt {
        runs.incrementAndGet()
        return Receipt(orderId, 100, emptyList())
    }
}

object IdempotencySetup {
    /** The default codec, with Jackson's Kotlin module added to its mapper: its limits stay in place. */
    fun codec(): ResultCodec = JsonCodec.customized { it.addModule(kotlinModule()) }

    fun install(): Idempotency = Idempotency.install(
        IdempotencyConfig.builder()
            .store(CaffeineIdempotencyStore())
            .codec(codec())
            .build()
    )
}
