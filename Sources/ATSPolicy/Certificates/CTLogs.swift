#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The CT logs Apple's log list knows, as data.
//
// Source: Apple's CT log list, https://valid.apple.com/ct/log_list/current_log_list.json
// (schema log_list_schema_v5, "version": "511", assetVersionV2 1013; its newest state change is
// dated 2026-03-30), read from the copy kept in github.com/crtsh/ctloglists at
// files/apple/current_log_list.json, commit 16643f152c4206e42dbe7c4d86f288a1ba92c5b4.
// Transcribed 2026-11-22. Every row was read from that file: log_id, description (as "name"),
// the operator's "name", the one state and the day of its timestamp; "tiled_logs" entries are
// marked .staticCTAPI. The key, URL, MMD and temporal_interval were not copied.
// Each log ID was checked to decode to 32 bytes. Never add a row that was not read from a list.

extension CTLogList {
    /// Apple's log list, version 511 (see the comment at the top of CTLogs.swift).
    public static let apple = CTLogList(
        source: "Apple current_log_list.json version 511 (newest entry 2026-03-30), via github.com/crtsh/ctloglists@16643f15, transcribed 2026-11-22",
        logs: appleRows
    )

    static let appleRows: [CTLog] = [
        // StartCom
        CTLog("NLtq1sPfnAPuqKSZ/3iRSGydXlysktAfe/0bzhnbSO8=", "StartCom log", operator: "StartCom", .rejected, since: (2022, 5, 2), .rfc6962),
        // Cloudflare
        CTLog("H7w24ALt6X9AGZ6Gs1c7ikIX2AGHdGrQ2gOgYFTSDfQ=", "Cloudflare 'Nimbus 2017' log", operator: "Cloudflare", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("ejKMVNi3LbYg6jjgUh7phBZwMhOFTTvSK8E6V6NS61I=", "Cloudflare 'Nimbus 2023' log", operator: "Cloudflare", .rejected, since: (2024, 1, 20), .rfc6962),
        CTLog("QcjKsd8iRkoQxqE6CUKHXk4xixsD6+tLx2jwkGKWBvY=", "Cloudflare 'Nimbus 2022' log", operator: "Cloudflare", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("RJRlLrDuzq/EQAfYqP4owNrmgr7YyzG1P9MzlrW2gag=", "Cloudflare 'Nimbus 2021' log", operator: "Cloudflare", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("Xqdz+d9WwOe1Nkh90EngMnqRmgyEoRIShBh1loFxRVg=", "Cloudflare 'Nimbus 2020' log", operator: "Cloudflare", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("23Sv7ssp7LH+yj5xbSzluaq7NveEcYPHXZ1PN7Yfv2Q=", "Cloudflare 'Nimbus 2018' log", operator: "Cloudflare", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("dH7agzGtMxCRIZzOJU9CcMK//V5CIAjGNzV55hB7zFY=", "Cloudflare 'Nimbus 2019' log", operator: "Cloudflare", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("2ra/az+1tiKfm8K7XGvocJFxbLtRhIU0vaQ9MEjX+6s=", "Cloudflare 'Nimbus 2024' log", operator: "Cloudflare", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("zPsPaoVxCWX+lZtTzumyfCLphVwNl422qX5UwP5MDbA=", "Cloudflare 'Nimbus 2025' log", operator: "Cloudflare", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("yzj3FYl8hKFEX1vB3fvJbvKaWc1HCmkFhbDLFMMUWOc=", "Cloudflare 'Nimbus 2026' log", operator: "Cloudflare", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("TGPcmOWcHauI9h6KPd6uj6tEozd7X5uUw/uhnPzBviY=", "Cloudflare 'Nimbus2027' log", operator: "Cloudflare", .usable, since: (2025, 11, 17), .rfc6962),
        CTLog("Tw05u8NV28wWJ5ZuVAUVfMr3Lj90j0f+ewSeWlkVXL0=", "Cloudflare 'Raio2025h2b' log", operator: "Cloudflare", .rejected, since: (2026, 1, 29), .staticCTAPI),
        CTLog("5bvNwMctaSvZWYo2AgQ86FTsb2D4AGZ4WWOIK3w4JDg=", "Cloudflare 'Raio2026h1a' log", operator: "Cloudflare", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("uuKpKTLFwF0fpU00gTDwm/yIMxZKFaH7vvUmKDJWyAs=", "Cloudflare 'Raio2026h2a' log", operator: "Cloudflare", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("ijgQv0CPWs97dN4gwHGQO3F5yrDb12jv+hD2KY6gaAw=", "Cloudflare 'Raio2027h1a' log", operator: "Cloudflare", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("Ia1IGvXLVPNLOr+uoP8Gmns8dm/DtpCHC7RrFS+2C/k=", "Cloudflare 'Raio2027h2a' log", operator: "Cloudflare", .usable, since: (2026, 3, 30), .staticCTAPI),
        // WoSign
        CTLog("QbLcLonmPOSvG6e7Kb9oxt7m+fHMBH4w3/rjs7olkmM=", "WoSign log", operator: "WoSign", .rejected, since: (2022, 5, 2), .rfc6962),
        // GDCA
        CTLog("cX6nQgl1voSicjVT8Xd8Jt1Rr04QIUQJTZAZtGL7Zmg=", "GDCA 'CT Log 1' log", operator: "GDCA", .rejected, since: (2019, 1, 3), .rfc6962),
        CTLog("FDCNkMzQMBNQBcAcpSbYHoTodiTjm2JI4I9ySuo7tCo=", "GDCA 'CT Log 2' log", operator: "GDCA", .rejected, since: (2019, 1, 3), .rfc6962),
        // Venafi
        CTLog("AwGd8/2FppqOvR+sxtqbpz5Gl3T+d/V5/FoIuDKMHWs=", "Venafi Gen2 CT log", operator: "Venafi", .rejected, since: (2022, 5, 2), .rfc6962),
        CTLog("rDua7X+pZ0dXFZ5tfVdWcvnZgQCUHpve/+yhMTt1eC0=", "Venafi log", operator: "Venafi", .rejected, since: (2022, 5, 2), .rfc6962),
        // CNNIC
        CTLog("pXesnO11SN2PAltnokEInfhuD0duwgPC7L7bGF8oJjg=", "CNNIC CT log", operator: "CNNIC", .rejected, since: (2022, 5, 2), .rfc6962),
        // Izenpe
        CTLog("dGG0oJz7PUHXUVlXWy52SaRFqNJ3CbDMVkpkgrfrQaM=", "Izenpe log", operator: "Izenpe", .rejected, since: (2022, 5, 2), .rfc6962),
        // Google
        CTLog("+tTJfMSe4vishcXqXOoJ0CINu/TknGtQZi/4aPhrjCg=", "Google 'Argon 2017' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("u9nfvB+KcbWTlCOXqpJ7RzhXlQqrUugakJZkNo4e0YU=", "Google 'Skydiver' log", operator: "Google", .rejected, since: (2024, 7, 17), .rfc6962),
        CTLog("aPaY+B9kgr46jO65KB1M/HFRXWeT1ETRCmesu09P+8Q=", "Google 'Aviator' log", operator: "Google", .rejected, since: (2024, 7, 17), .rfc6962),
        CTLog("pLkJkLQYWBSHuxOizGdwCjw1mAT5G9+443fNDsgN3BA=", "Google 'Pilot' log", operator: "Google", .rejected, since: (2024, 7, 17), .rfc6962),
        CTLog("CEEUmABxUywWGQRgvPxH/cJlOvopLHKzf/hjrinMyfA=", "Google 'Xenon 2019' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("sQzVWabWeEaBH335pRUyc5rEjXA76gMj2l04dVvArU4=", "Google 'Xenon 2018' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("9lyUL9F3MCIUVBgIMJRWjuNNExkzv98MLyALzE7xZOM=", "Google 'Argon 2021' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("sh4FzIuizYogTodm+Su5iiUgZ2va+nDnsklTLe+LkF4=", "Google 'Argon 2020' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("7ku9t3XOYLrhQmkfq+GeZqMPfl+wctiDAMR7iXqo/cs=", "Google 'Rocketeer' log", operator: "Google", .rejected, since: (2024, 7, 17), .rfc6962),
        CTLog("pFASaQVaFVReYhGrN7wQP2KuVXakXksXFEU+GyIQaiU=", "Google 'Argon 2018' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("Y/Lbzeg7zCzPC3KEJ1drM6SNYXePvXWmOLHHaFRL2I0=", "Google 'Argon 2019' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("B7dcG+V9aP/xsMYdIxXHuuZXfFeUt2ruvGE6GmnTohw=", "Google 'Xenon 2020' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("fT7y+I//iFVoJMLAyp5SiXkrxQ54CX8uapdomX4i8Nc=", "Google 'Xenon 2021' log", operator: "Google", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("KTxRllTIOWW6qlD8WAfUt2+/WHopctykwwz05UVH9Hg=", "Google 'Icarus' log", operator: "Google", .rejected, since: (2024, 7, 17), .rfc6962),
        CTLog("RqVV63X6kSAwtaKJafTzfREsQXS+/Um4havy/HD+bUc=", "Google 'Xenon 2022' log", operator: "Google", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("KXm+8J45OSHwVnOfY6V35b5XfZxgCvj5TV0mXCVdx4Q=", "Google 'Argon 2022' log", operator: "Google", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("6D7Q2j71BjUy51covIlryQPTy9ERa+zraeF3fW0GvW4=", "Google 'Argon 2023' log", operator: "Google", .rejected, since: (2024, 1, 20), .rfc6962),
        CTLog("rfe++nz/EMiLnT2cHj4YarRnKV3PsQwkyoWGNOvcgoo=", "Google 'Xenon 2023' log", operator: "Google", .rejected, since: (2024, 1, 20), .rfc6962),
        CTLog("7s3QZNXbGs7FXLedtM0TojKHRny87N7DUUhZRnEftZs=", "Google 'Argon 2024' log", operator: "Google", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("dv+IPwq2+5VRwmHM9Ye6NLSkzbsp3GhCCp/mZ0xaOnQ=", "Google 'Xenon 2024' log", operator: "Google", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("TnWjJ1yaEMM4W2zU3z9S6x3w4I4bjWnAsfpksWKaOd8=", "Google 'Argon 2025H1' log", operator: "Google", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("EvFONL1TckyEBhnDjz96E/jntWKHiJxtMAWE6+WGJjo=", "Google 'Argon 2025H2' log", operator: "Google", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("zxFW7tUufK/zh1vZaS6b6RpxZ0qwF+ysAdJbd87MOwg=", "Google 'Xenon 2025H1' log", operator: "Google", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("3dzKNJXX4RYF55Uy+sef+D0cUN/bADoUEnYKLKy7yCo=", "Google 'Xenon 2025H2' log", operator: "Google", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("DleUvPOuqT4zGyyZB7P3kN+bwj1xMiXdIaklrGHFTiE=", "Google 'Argon 2026H1' log", operator: "Google", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("1219ENGn9XfCx+lf1wC/+YLJM1pl4dCzAXMXwMjFaXc=", "Google 'Argon 2026H2' log", operator: "Google", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("lpdkv1VYl633Q4doNwhCd+nwOtX2pPM2bkakPw/KqcY=", "Google 'Xenon 2026H1' log", operator: "Google", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("2AlVO5RPev/IFhlvlE+Fq7D4/F6HVSYPFdEucrtFSxQ=", "Google 'Xenon 2026H2' log", operator: "Google", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("RMK9DOkUDmSlyUoBkwpaobs1lw4A7hEWiWgqHETXtWY=", "Google 'Xenon2027h1' log", operator: "Google", .usable, since: (2025, 11, 17), .rfc6962),
        CTLog("1tWNqdAXU/NqSqDHV0kCr+vH3CzTjNn3ZMgMiRkenwI=", "Google 'Argon2027h1' log", operator: "Google", .usable, since: (2025, 11, 17), .rfc6962),
        // Beijing PuChuangSiDa Technology Ltd.
        CTLog("4BJ2KekEllZOPQFHmESYqkj4rbFmAOt5AqHvmQmQYnM=", "PuChuangSiDa CT log", operator: "Beijing PuChuangSiDa Technology Ltd.", .rejected, since: (2017, 9, 19), .rfc6962),
        // Certly
        CTLog("zbUXm3/BwEb+6jETaj+PAC5hgvr4iW/syLL1tatgSQA=", "Certly.IO log", operator: "Certly", .rejected, since: (2022, 5, 2), .rfc6962),
        // DigiCert
        CTLog("/kRhCLHQGreKYsz+q2qysrq/86va2ApNizDfLQAIgww=", "DigiCert 'Nessie 2019' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("b/FBtWR+QiL37wUs7658If1gjifSr1pun0uKN9ZjPuU=", "DigiCert 'Nessie 2018' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("UaOw9f0BeZxWbbg3eI8MpHrMGyfL956IQpoN/tSLBeU=", "DigiCert 'Nessie 2022' log", operator: "DigiCert", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("FZcEiNe5l6Bb61JRKt7o0ui0oxZSZBIan6v71fha2T8=", "Symantec 'Sirius' log", operator: "DigiCert", .rejected, since: (2022, 5, 2), .rfc6962),
        CTLog("3esdK3oNT6Ygi4GtgWhwfi6OnQHVXIiNPRHEzbbsvsw=", "Symantec log", operator: "DigiCert", .rejected, since: (2022, 5, 2), .rfc6962),
        CTLog("VhQGmi/XwuzT9eG9RLI+x0Z2ubyZEVzA75SYVdaJ0N0=", "DigiCert Log Server", operator: "DigiCert", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("h3W/51l8+IxDmV+9827/Vo1HVjb/SrVgwbTq/16ggw8=", "DigiCert Log Server 2", operator: "DigiCert", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("4mlLribo6UAJ6IYbtjuD1D7n/nSI+6SPKJMBnd3x2/4=", "DigiCert 'Yeti 2019' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("wRZK4Kdy0tQ5LcgKwQdw1PDEm96ZGkhAwfoHUWT2M2A=", "DigiCert 'Yeti 2018' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("vHjh38X2PGhGSTNNoQ+hXwl5aSAJwIG08/aRfz7ZuKU=", "Symantec 'Vega' log", operator: "DigiCert", .rejected, since: (2022, 5, 2), .rfc6962),
        CTLog("xlKg7EjOs/yrFwmSxDqHQTMJ6ABlomJSQBujNioXxWU=", "DigiCert 'Nessie 2020' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("XNxDkv7mq0VEsV6a1FbmEDf71fpH3KFzlLJe5vbHDso=", "DigiCert 'Yeti 2021' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("IkVFB1lVJFaWP6Ev8fdthuAjJmOtwEt/XcaDXG7iDwI=", "DigiCert 'Yeti 2022' log", operator: "DigiCert", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("8JWkWfIA0YJAEC0vk4iOrUv+HUfjmeHQNKawqKqOsnM=", "DigiCert 'Yeti 2020' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("7sCV7o1yZA+S48O5G8cSo2lqCXtLahoUOOZHssvtxfk=", "DigiCert 'Nessie 2021' log", operator: "DigiCert", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("Nc8ZG7+xbFe/D61MbULLu7YnICZR6j/hKu+oA8M71kw=", "DigiCert 'Yeti 2023' log", operator: "DigiCert", .rejected, since: (2023, 12, 1), .rfc6962),
        CTLog("s3N3B+GEUPhjhtYFqdwRCUp5LbFnDAuH3PADDnk2pZo=", "DigiCert 'Nessie 2023' log", operator: "DigiCert", .rejected, since: (2024, 1, 20), .rfc6962),
        CTLog("BZwB0yDgB4QTlYBJjRF8kDJmr69yULWvO0akPhGEDUo=", "DigiCert 'Yeti 2022' log #2", operator: "DigiCert", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("SLDja9qmRzQP5WoC+p0w6xxSActW3SyB2bu/qznYhHM=", "DigiCert 'Yeti 2024' log", operator: "DigiCert", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("c9meiRtMlnigIH1HneayxhzQUV5xGSqMa4AQesF3crU=", "DigiCert 'Nessie 2024' log", operator: "DigiCert", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("fVkeEuF4KnscYWd8Xv340IdcFKBOlZ65Ay/ZDowuebg=", "DigiCert 'Yeti 2025' log", operator: "DigiCert", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("5tIxY0B3jMEQQQbXcbnOwdJA9paEhvu6hzId/R43jlA=", "DigiCert 'Nessie 2025' log", operator: "DigiCert", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("tp3cvDwave9vn9YMiLEGe3fwgmiLLXhl0Es5q+knpXU=", "DigiCert 'Wyvern2024h1' Log", operator: "DigiCert", .rejected, since: (2024, 8, 27), .rfc6962),
        CTLog("DCrvLEpbmIPU3aOC/lD7UYiz6XMzoexToJ3Jp50NCCA=", "DigiCert 'Wyvern2024h2' Log", operator: "DigiCert", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("cyAiDwgWivnzxKaLCrJqmkoA7vV3hYoITQUA1KVCRFk=", "DigiCert 'Wyvern2025h1' Log", operator: "DigiCert", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("7TxL1ugGwqSiAFfbyyTiOAHfUS/txIbFcA8g3bc+P+A=", "DigiCert 'Wyvern2025h2' Log", operator: "DigiCert", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("ZBHEbKQS7KeJHKICLgC8q08oB9QeNSer6v7VA8l9zfA=", "DigiCert 'Wyvern 2026h1' Log", operator: "DigiCert", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("wjF+V0UZo0XufzjespBB68fCIVoiv3/Vta12mtkOUs0=", "DigiCert 'Wyvern 2026h2' Log", operator: "DigiCert", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("2wds3mqLeOxY1gVklutqJqjFnnISk+isAyfd3onbWio=", "DigiCert 'Sphinx2024h1' Log", operator: "DigiCert", .rejected, since: (2024, 8, 27), .rfc6962),
        CTLog("3Mleb6KZubD9vWymo24dcsQhL90eD0dVOjbWzxrRHY0=", "DigiCert 'Sphinx2024h2' Log", operator: "DigiCert", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("3oWB11AkfGvNy69WN8XngcZM5G7WF2OfjzSnJsnivTc=", "DigiCert 'Sphinx2025h1' Log", operator: "DigiCert", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("pELFBklgYVSPD9TqnPt6LSZFTYepfy/fRVn2J086hFQ=", "DigiCert 'Sphinx2025h2' Log", operator: "DigiCert", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("SZybad4dfOz8Nt7Nh2SmuFuvCoeAGdFVUvvp6ynd+MM=", "DigiCert 'Sphinx 2026h1' Log", operator: "DigiCert", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("lE5Dh/rswe+B8xkkJqgYZQHH0184AgE/cmd9VTcuGdg=", "DigiCert 'Sphinx 2026h2' Log", operator: "DigiCert", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("RqI5Z8YNtkaHxm89+ZmUdpOmphEghFfVVefj0KHZtkY=", "DigiCert 'sphinx2027h1'", operator: "DigiCert", .usable, since: (2026, 3, 30), .rfc6962),
        CTLog("H7D4qS2K3aEhd2wF4qouFbrLxitlOTaVV2qqtS4R0R0=", "DigiCert 'sphinx2027h2'", operator: "DigiCert", .usable, since: (2026, 3, 30), .rfc6962),
        CTLog("ABpdGhwtk3W2SFV4+C9xoa5u7zl9KXyK4xV7yt7hoB4=", "DigiCert 'Wyvern2027h1'", operator: "DigiCert", .usable, since: (2026, 3, 30), .rfc6962),
        CTLog("N6oHzCFvLm2RnHCdJNj3MbAPKxR8YhzAkaX6GoTYFt0=", "DigiCert 'Wyvern2027h2'", operator: "DigiCert", .usable, since: (2026, 3, 30), .rfc6962),
        // Sectigo
        CTLog("b1N2rDHwMRnYmQCkURX/dxUcEdkCwQApBo2yCJo32RM=", "Sectigo 'Mammoth' CT log", operator: "Sectigo", .rejected, since: (2024, 7, 17), .rfc6962),
        CTLog("VYHUwhaQNgFK6gubVzxT8MDkOHhwJQgXL6OqHQcT0ww=", "Sectigo 'Sabre' CT log", operator: "Sectigo", .rejected, since: (2025, 6, 9), .rfc6962),
        CTLog("KdA6G7Z0qnEc0wNbZVfBT4qni0/oOJRJ7KRT+US9JGg=", "Sectigo 'Mammoth2024H1' log", operator: "Sectigo", .rejected, since: (2024, 8, 27), .rfc6962),
        CTLog("3+FW66oFr7WcD4ZxjajAMk6uVtlup/WlagHRwTu+Ulw=", "Sectigo 'Mammoth2024H2' log", operator: "Sectigo", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("E0rfGrWYQgl4DG/vTHqRpBa3I0nOWFdq367ap8Kr4CI=", "Sectigo 'Mammoth2025H1' log", operator: "Sectigo", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("rxgaKNaMo+CpikycZ6sJ+Lu8IrquvLE4o6Gd0/m2Aw0=", "Sectigo 'Mammoth2025H2' log", operator: "Sectigo", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("ouK/1h7eLy8HoNZObTen3GVDsMa1LqLat4r4mm31F9g=", "Sectigo 'Sabre2024H1' log", operator: "Sectigo", .rejected, since: (2024, 8, 27), .rfc6962),
        CTLog("GZgQcQnw1lIuMIDSnj9ku4NuKMz5D1KO7t/OSj8WtMo=", "Sectigo 'Sabre2024H2' log", operator: "Sectigo", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("4JKz/AwdyOdoNh/eYbmWTQpSeBmKctZyxLBNpW1vVAQ=", "Sectigo 'Sabre2025H1' log", operator: "Sectigo", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("GgT/SdBUHUCv9qDDv/HYxGcvTuzuI0BomGsXQC7ciX0=", "Sectigo 'Sabre2025H2' log", operator: "Sectigo", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("UIUBWNy2BZXADpKoEQLszf4/a3hYQp9XmDU4ydpSUGM=", "Sectigo 'Mammoth2024H1b' log", operator: "Sectigo", .rejected, since: (2024, 8, 27), .rfc6962),
        CTLog("JS+Uwisp6W6fQRpyBytpXFtS/5epDSVAu/zcUexN7gs=", "Sectigo 'Mammoth2026H1' log", operator: "Sectigo", .readonly, since: (2025, 9, 18), .rfc6962),
        CTLog("lLHBirDQV8R74KwEDh8svI3DdXJ7yVHyClJhJoY7pzw=", "Sectigo 'Mammoth2026H2' log", operator: "Sectigo", .readonly, since: (2025, 9, 18), .rfc6962),
        CTLog("VmzVo3a+g9/jQrZ1xJwjJJinabrDgsurSaOHfZqzLQE=", "Sectigo 'Sabre2026H1' log", operator: "Sectigo", .readonly, since: (2025, 9, 18), .rfc6962),
        CTLog("H1bRq5RwSkHdP+r99GmTVTAsFDG/5hNGCJ//rnldzC8=", "Sectigo 'Sabre2026H2' log", operator: "Sectigo", .readonly, since: (2025, 9, 18), .rfc6962),
        CTLog("DR28iUTp9QBVQtctPhRMzEMIKrbqHpTf1wZlfS6G8wE=", "Elephant 2025h2", operator: "Sectigo", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("0W6ppWgHfmY1oD83pd28A6U8QRIU1IgY9ekxsyPLlQQ=", "Elephant 2026h1", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("r2eIO1ewTt2Pptl+9i6o64EKx3Fg8CReVdYML+eFhzo=", "Elephant 2026h2", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("YEyar3p/d18B1Ab8kg3ImesLHH34yVIb+voXdzuXi8k=", "Elephant 2027h1", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("okkM3NuOM6QAMhdg1tTVGiA2GR6nfZaL4mqKAPb///c=", "Elephant 2027h2", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("XKV30pt/i69Bntjsq/tty67DhTcC1XRvF02tPJNKqWo=", "Tiger 2025h2", operator: "Sectigo", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("FoMtq/CpJQ8P8DqlRf/Iv8gj0IdL9gQpJ/jnHzMT9fo=", "Tiger 2026h1", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("yKPEf8ezrbk1awE/anoSbeM6TkOlxkb5l605dZkdz5o=", "Tiger 2026h2", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("HJ9oLOn68EVpUPgbloqH3dsyENhM5siy44JSSsTPWZ8=", "Tiger 2027h1", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        CTLog("A4AqwmL24F4D+Lxve5hRMk/Xaj31t1lRdeIi+46b1fY=", "Tiger 2027h2", operator: "Sectigo", .usable, since: (2025, 9, 15), .rfc6962),
        // Let's Encrypt
        CTLog("ZZszUPQ7EsxepatOx2XT/ebIgkN3d3jnIAP56yuMMSk=", "Let's Encrypt 'Oak2019' log", operator: "Let's Encrypt", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("5xLysDd+GmL7jskMYYTx6ns3y1YdESZb8+DzS/JBVG4=", "Let's Encrypt 'Oak2020' log", operator: "Let's Encrypt", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("lCC8Ho7VjWyIcx+CiyIsDdHaTV5sT5Q9YdtOL1hNosI=", "Let's Encrypt 'Oak2021' log", operator: "Let's Encrypt", .rejected, since: (2022, 4, 29), .rfc6962),
        CTLog("36Veq2iCTx9sre64X04+WurNohKkal6OOxLAIERcKnM=", "Let's Encrypt 'Oak2022' log", operator: "Let's Encrypt", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("tz77JN+cTbp18jnFulj0bF38Qs96nzXEnh0JgSXttJk=", "Let's Encrypt 'Oak2023' log", operator: "Let's Encrypt", .rejected, since: (2024, 1, 20), .rfc6962),
        CTLog("O1N3dT4tuYBOizBbBv5AO2fYT8P0x70ADS1yb+H61Bc=", "Let's Encrypt 'Oak2024H1' log", operator: "Let's Encrypt", .rejected, since: (2024, 8, 27), .rfc6962),
        CTLog("PxdLT9ciR1iUHWUchL4NEu2QN38fhWrrwb8ohez4ZG4=", "Let's Encrypt 'Oak2024H2' log", operator: "Let's Encrypt", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("ouMK5EXvva2bfjjtR2d3U9eCW4SU1yteGyzEuVCkR+c=", "Let's Encrypt 'Oak2025H1' log", operator: "Let's Encrypt", .rejected, since: (2025, 8, 20), .rfc6962),
        CTLog("DeHyMCvTDcFAYhIJ6lUu/Ed0fLHX6TDvDkIetH5OqjQ=", "Let's Encrypt 'Oak2025H2' log", operator: "Let's Encrypt", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("GYbUxyiqb/66A294Kk0BkarOLXIxD67OXXBBLSVMx9Q=", "Let's Encrypt 'Oak2026H1' log", operator: "Let's Encrypt", .readonly, since: (2025, 12, 11), .rfc6962),
        CTLog("rKswcGzr7IQx9BPS9JFfER5CJEOx8qaMTzwrO6ceAsM=", "Let's Encrypt 'Oak2026H2' log", operator: "Let's Encrypt", .readonly, since: (2025, 12, 11), .rfc6962),
        CTLog("W/beU/H7+sSaGFl0aUWhpqconV5wpg9IRQ5Ya7mucrg=", "log.sycamore.ct.letsencrypt.org/2025h2d", operator: "Let's Encrypt", .rejected, since: (2026, 1, 29), .staticCTAPI),
        CTLog("pcl4kl1XRheChw3YiWYLXFVki30AQPLsB2hR0YhpGfc=", "log.sycamore.ct.letsencrypt.org/2026h1", operator: "Let's Encrypt", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("bP5QGUOoXqkWvFLRM+TcyR7xQRx9JYQg0XOAnhgY6zo=", "log.sycamore.ct.letsencrypt.org/2026h2", operator: "Let's Encrypt", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("jspHC6zeavOiBrCkeoS3Rv4fxr+VPiXmm07kAkjzxug=", "log.sycamore.ct.letsencrypt.org/2027h1", operator: "Let's Encrypt", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("5eNiR9ku9K2jhYO1NZHbcp/C8ArktnRRdNPd/GqiU4g=", "Let's Encrypt 'Sycamore2027h2'", operator: "Let's Encrypt", .usable, since: (2026, 3, 30), .staticCTAPI),
        CTLog("4yON8o2iiOCq4Kzw+pDJhfC2v/XSpSewAfwcRFjEtug=", "log.willow.ct.letsencrypt.org/2026h1", operator: "Let's Encrypt", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("qCbL4wrGNRJGUz/gZfFPGdluGQgTxB3ZbXkAsxI8VSc=", "log.willow.ct.letsencrypt.org/2026h2", operator: "Let's Encrypt", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("ooEAGHNOF24dR+CVQPOBulRml81jqENQcW64CU7a8Q0=", "log.willow.ct.letsencrypt.org/2027h1", operator: "Let's Encrypt", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("ppWirZJtb5lujvxJAUJX2LvwRqfWJYm4jcLXh2x45S8=", "Let's Encrypt 'Willow2027h2'", operator: "Let's Encrypt", .usable, since: (2026, 3, 30), .staticCTAPI),
        CTLog("5NAXdhyRORG+9HOWrNjSRljCT7WTtRvqxVknYuiFPBU=", "log.willow.ct.letsencrypt.org/2025h2d", operator: "Let's Encrypt", .rejected, since: (2026, 1, 29), .staticCTAPI),
        // TrustAsia
        CTLog("pZWUO1NwvukG4AUNH7W7xqQOZfJlroUsdjY/rbIzNu0=", "TrustAsia Log 2020", operator: "TrustAsia", .rejected, since: (2021, 1, 4), .rfc6962),
        CTLog("Z422Wz50Q7bzo3DV4TqxtDvgoNNR98p0IlDHxvpRqIo=", "TrustAsia Log 2021", operator: "TrustAsia", .rejected, since: (2021, 1, 4), .rfc6962),
        CTLog("w2X5s2VPMoPHnamOk9dBj1ure+MlLJjh0vBLuetCfSM=", "TrustAsia Log 2022", operator: "TrustAsia", .rejected, since: (2023, 7, 26), .rfc6962),
        CTLog("6H6nZgvCbPYALvVyXT/g4zG5OTu5L79Y6zuQSdr1Q1o=", "TrustAsia Log 2023", operator: "TrustAsia", .rejected, since: (2024, 1, 20), .rfc6962),
        CTLog("h0+1DcAp2ZMd5XPp8omejkUzs5LTiwpGJXS/D+6y/B4=", "Trust Asia Log2024-2", operator: "TrustAsia", .rejected, since: (2025, 2, 24), .rfc6962),
        CTLog("KOKBOP2DIUXpqdaqdTdtg3eohRKzwH9yQUgh3L3pjGY=", "Trust Asia Log2025A", operator: "TrustAsia", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("KCyL3YEP+QkSCs4W1uDsIBvqgqOkrxnZ7/tZ6D/cQmg=", "Trust Asia Log2025B", operator: "TrustAsia", .rejected, since: (2026, 1, 29), .rfc6962),
        CTLog("dNudWPfUfp39eHoWKpkcGM9pjafHKZGMmhiwRQ26RLw=", "TrustAsia Log2026A", operator: "TrustAsia", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("Jbfv3qETAZPtkweXcKoyKiZiDeNayKp8dRl94LGp4GU=", "TrustAsia Log2026B", operator: "TrustAsia", .usable, since: (2024, 11, 26), .rfc6962),
        CTLog("7drrgVxjITRJtHvlB3kFq9DZMUfCesUUazvFjkPptsc=", "TrustAsia HETU2027 (RFC6962)", operator: "TrustAsia", .usable, since: (2025, 11, 17), .rfc6962),
        CTLog("VzRIzG4dLA3JS2nyh9Hv5IPHolxQxTILuzrep29usEE=", "TrustAsia Luoshu2027", operator: "TrustAsia", .pending, since: (2026, 1, 29), .staticCTAPI),
        // Geomys
        CTLog("750EQi4gtDIQJ1TfUtJRRgJ/hEwH/YZeySLub86fe7w=", "Tuscolo2025h2", operator: "Geomys", .rejected, since: (2026, 1, 29), .staticCTAPI),
        CTLog("cX6V88I4im2x44RJPTHhWqliCHYtQgDgBQzQZ7WmYeI=", "Tuscolo2026h1", operator: "Geomys", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("Rq+GPTs+5Z+ld96oJF02sNntIqIj9GF3QSKUUu6VUF8=", "Tuscolo2026h2", operator: "Geomys", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("WW5sM4aUsllyolbIoOjdkEp26Ag92oc7AQg4KBQ87lk=", "Tuscolo2027h1", operator: "Geomys", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("1d5V7roItgyf/BjFE75qYLoARga8WVuWu0T2LMV9Ofo=", "Tuscolo2027h2", operator: "Geomys", .usable, since: (2025, 11, 17), .staticCTAPI),
        // IPng GmbH
        CTLog("GoudanQ8ze1gH3O9MJcIHbyuxKYTnJKwtUDDE3sg7AU=", "Gouda 2025h2", operator: "IPng GmbH", .rejected, since: (2026, 1, 29), .staticCTAPI),
        CTLog("GoudaUpXmMiZoMqIvfSPwLRWYMzDYA0fcfRp/8fRrKM=", "Gouda 2026h1", operator: "IPng GmbH", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("Goudaw/+v4G0eTnG0jEKhtbRAtTwRuIYLJ3jX14mJe8=", "Gouda 2026h2", operator: "IPng GmbH", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("Gouda43XkdHNBUnttgNV1ga2T60w23H+eI8Px8j7xLE=", "Gouda 2027h1", operator: "IPng GmbH", .usable, since: (2025, 11, 17), .staticCTAPI),
        CTLog("GoudaVNi2GSSp7niI2BuNOzp4xC6NPuTBXhdKc5XV+s=", "IPng GmbH 'Gouda2027h2'", operator: "IPng GmbH", .usable, since: (2026, 3, 30), .staticCTAPI),
        CTLog("+3xjpo0eBq3Qg4ibuNQyHLJFROv2/mlyKRkuOD5ebiM=", "IPng GmbH 'Halloumi2025h2'", operator: "IPng GmbH", .rejected, since: (2026, 1, 29), .staticCTAPI),
        CTLog("fz035/iSPY5xZb6w0+q+5yoivkbAy4TEFtTkuYJky8I=", "IPng GmbH 'Halloumi2026h1'", operator: "IPng GmbH", .usable, since: (2026, 3, 30), .staticCTAPI),
        CTLog("JuNkblhpISO8ND9HJDWbN5LNJFqI2BXTkzP9mRirRyM=", "IPng GmbH 'Halloumi2026h2a'", operator: "IPng GmbH", .usable, since: (2026, 3, 30), .staticCTAPI),
        CTLog("ROgi/CurDpLu0On61pZkYCd20Bdg4IkFCckjobA/w38=", "IPng GmbH 'Halloumi2027h1'", operator: "IPng GmbH", .usable, since: (2026, 3, 30), .staticCTAPI),
        CTLog("CRV/Yy1Gx/dtlSZUk7wPALOVrF2zorJr+wQ9ukrGOJM=", "IPng GmbH 'Halloumi2027h2'", operator: "IPng GmbH", .usable, since: (2026, 3, 30), .staticCTAPI),
    ]
}
