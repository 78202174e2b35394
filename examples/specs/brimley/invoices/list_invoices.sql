/*
---
name: list_invoices
type: sql_function
connection: billing
description: Invoices of some accounts, newest first.
arguments:
  entity_ref: InvoiceFilter        # status, issued_after and tenant_id become arguments
  inline:
    tenant_id:
      from_context: app.tenant.id  # ... but the tenant comes from the session, never from the LLM
    account_ids:
      type: int[]
      minItems: 1
      description: The accounts to list.
    limit:
      type: int
      default: 50
      minimum: 1
      maximum: 500
return_shape: Invoice[]
---
*/
-- The status filter is optional: ':status' inside this comment is not a placeholder.
SELECT invoice_id, account_id, amount, status, issued_on, paid_at, overdue
FROM invoices
WHERE tenant_id = :tenant_id
  AND account_id IN :account_ids
  AND status = :status
  AND (:issued_after IS NULL OR issued_on >= :issued_after)
ORDER BY issued_on DESC, invoice_id DESC
LIMIT :limit
