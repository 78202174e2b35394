/*
---
name: saved_forecasts
type: sql_function
description: Forecasts saved for a city, newest first.
arguments:
  inline:
    city: string
    limit:
      type: int
      default: 10
      minimum: 1
return_shape: Forecast[]
---
*/
SELECT date, high, low, summary
FROM forecasts
WHERE city = :city
ORDER BY date DESC
LIMIT :limit
