/*
---
name: get_invoice
type: sql_function
connection: billing
description: One invoice by its number, or nothing.
args:                     # the v0.2 SQL docs' spelling of `arguments`
  inline:
    invoice_id: int
    tenant_id:
      type: int
      from_context: app.tenant.id
returns: Invoice          # ... and of `return_shape`: one row, or None
---
*/
SELECT invoice_id, account_id, amount, status, issued_on, paid_at, overdue
FROM invoices
WHERE invoice_id = :invoice_id AND tenant_id = :tenant_id
