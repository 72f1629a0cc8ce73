package com.example.docs.spring;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// README snippet: spring-orders
