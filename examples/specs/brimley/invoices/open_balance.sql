/*
---
name: open_balance
type: sql_function
connection: billing
description: The total still owed by one account.
arguments:
  inline:
    account_id: int
    tenant_id:
      type: int
      from_context: app.tenant.id
return_shape: decimal
---
*/
SELECT COALESCE(SUM(amount), 0) AS balance
FROM invoices
WHERE account_id = :account_id AND tenant_id = :tenant_id AND status = 'open'
