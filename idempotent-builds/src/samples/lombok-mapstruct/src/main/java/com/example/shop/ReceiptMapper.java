package com.example.shop;

import org.mapstruct.Mapper;
import org.mapstruct.Mapping;

/** Maps an order request to its receipt (MapStruct fills the value class through its constructor). */
@Mapper
public interface ReceiptMapper {

  @Mapping(target = "orderId", source = "request.id")
  @Mapping(target = "customer", source = "request.customer")
  @Mapping(target = "cents", source = "request.cents")
  @Mapping(target = "run", source = "run")
  Receipt toReceipt(OrderRequest request, int run);
}
