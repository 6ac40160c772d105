-- Per-variant KPIs against the swept parameters: the article's speed x lf
-- sweep (scenarios/article.yaml + article_speed_lf.yaml).
SELECT json_extract(params, '$.actor1.speed')              AS speed_mps,
       json_extract(params, '$.actor1.vehicle_model.lf')   AS lf_m,
       status,
       round(max_yaw_rate, 4)                              AS yaw_rate_rad_s,
       round(max_lateral_acceleration, 3)                  AS lat_acc_mps2,
       round(time_on_lane_pct, 1)                          AS on_lane_pct
FROM variant_summary
ORDER BY lf_m, speed_mps;
