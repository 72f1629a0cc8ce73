package com.example.shop;

import io.idempotent.Idempotent;

// README snippet: annotate
