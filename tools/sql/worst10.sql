-- The ten variants that came closest to another actor (then by the
-- highest lateral acceleration), with what was varied.
SELECT variant_id, round(min_distance, 3) AS min_gap_m, collisions,
       round(max_lateral_acceleration, 2) AS lat_acc_mps2, params
FROM variant_summary
WHERE status = 'done'
ORDER BY min_distance ASC, max_lateral_acceleration DESC
LIMIT 10;
