import type { Translation } from '../../catalogue-shape';
import type en from '../en/mail';

export default {
  frame: {
    copyLink: 'Ou copie este link no seu navegador:',
    tagline: 'proxies residenciais',
    support: 'Suporte: {{address}}',
    contactSupport: 'fale com o suporte',
    contactSupportAt: 'fale com o suporte em {{address}}',
    actionLine: '{{label}}: {{url}}',
  },
  verifyEmail: {
    subject: 'Confirme seu e-mail',
    intro: 'Confirme seu endereço de e-mail para começar a usar o ProxyHub.',
    action: 'Confirmar e-mail',
    outro: 'Este link expira em 24 horas. Se você não se cadastrou, ignore este e-mail.',
  },
  alreadyRegistered: {
    subject: 'Tentativa de login',
    intro: 'Alguém tentou criar uma conta no ProxyHub com este e-mail, que já tem uma. Você pode entrar em vez disso.',
    action: 'Entrar',
    outro: 'Se não foi você, pode ignorar este e-mail.',
  },
  codeGuessing: {
    subject: 'Alguém digitou sua senha, mas não seu código',
    intro:
      'Alguém entrou na sua conta do ProxyHub com a sua senha e depois digitou 20 códigos de verificação em duas etapas errados. Seu segundo fator barrou o acesso, e o login com códigos ficou pausado por 15 minutos. Essa pessoa conhece sua senha: troque-a agora.',
    action: 'Trocar sua senha',
    outro: 'Se foi você, não é preciso fazer mais nada. Caso contrário, troque também sua chave de API e sua senha de proxy em Configurações.',
  },
  teamInvite: {
    subject: 'Você foi convidado para uma equipe do ProxyHub',
    intro:
      '{{account}} convidou você para a conta dele no ProxyHub com a função {{role}}. Entre ou crie uma conta com este endereço de e-mail e depois aceite o convite.',
    action: 'Aceitar o convite',
    outro: 'Este link expira em 7 dias e só pode ser usado uma vez. Se você não conhece o remetente, ignore este e-mail.',
  },
  role: {
    admin: 'administrador',
    developer: 'desenvolvedor',
    finance: 'financeiro',
    viewer: 'leitor',
  },
  resetPassword: {
    subject: 'Redefina sua senha',
    intro: 'Recebemos um pedido para redefinir sua senha do ProxyHub. Escolha uma nova no botão abaixo.',
    action: 'Redefinir senha',
    outro: 'Este link expira em 1 hora e só pode ser usado uma vez. Se você não pediu isso, ignore este e-mail.',
  },
  passwordChanged: {
    subject: 'Sua senha foi alterada',
    intro: 'A senha da sua conta do ProxyHub acabou de ser alterada e todas as sessões foram encerradas.',
    introInSettings: 'A senha da sua conta do ProxyHub acabou de ser alterada em Configurações e suas outras sessões foram encerradas.',
    action: 'Entrar',
    outro:
      'Se não foi você, redefina sua senha imediatamente e fale com o suporte. Sua chave de API e sua senha de proxy não mudaram: se elas podem ter vazado, troque-as em Configurações (Trocar chave de API, Trocar senha de proxy) ou chame POST /auth/rotate-api-key e POST /auth/rotate-proxy-password. A chave de API antiga para de funcionar na hora; a senha de proxy antiga, em até 10 segundos.',
  },
  lowBalance: {
    subject: 'Saldo baixo: restam {{remaining}}',
    intro:
      'Seus dados restantes no ProxyHub são {{remaining}}, abaixo do seu limite de alerta de {{threshold}}. Recarregue para manter seus proxies funcionando.',
    action: 'Recarregar',
    outro: 'Você recebe este e-mail porque configurou um alerta de saldo baixo em Configurações.',
  },
  outOfData: {
    subject: 'Sem dados',
    intro: 'Seus dados restantes no ProxyHub chegaram a {{zero}}: seus proxies param até você recarregar.',
    action: 'Recarregar',
    outro: 'Você recebe este e-mail porque configurou um alerta de saldo baixo em Configurações.',
  },
  usageThresholdPlan: {
    subject: '{{percent}} usado: {{what}}',
    intro:
      'Você usou {{used}} de {{limit}} ({{percent}}) de {{what}}. Ao chegar a 100%, seu tráfego continua usando seu saldo pré-pago até o próximo período começar.',
    action: 'Painel',
    outro: 'Você recebe este e-mail por causa dos percentuais de alerta de uso em Configurações.',
  },
  usageThreshold: {
    subject: '{{percent}} usado: {{what}}',
    intro:
      'Você usou {{used}} de {{limit}} ({{percent}}) de {{what}}. Ao chegar a 100%, a conta para até o limite ser aumentado (um limite diário ou mensal recomeça no próximo dia ou mês UTC).',
    action: 'Contas de proxy',
    outro: 'Você recebe este e-mail por causa dos percentuais de alerta de uso em Configurações.',
  },
  meter: {
    cap: 'o teto da conta de proxy "{{name}}"',
    daily: 'o limite diário da conta de proxy "{{name}}"',
    monthly: 'o limite mensal da conta de proxy "{{name}}"',
    plan: 'a franquia do plano "{{name}}" neste período',
  },
  proxyAccountExpiring: {
    subject: 'A conta de proxy "{{name}}" expira em breve',
    intro:
      'Sua conta de proxy "{{name}}" expira em {{expiresAt}} (UTC): a partir daí ela é recusada. Defina uma expiração posterior para mantê-la funcionando.',
    action: 'Contas de proxy',
    outro: 'Você recebe este e-mail três dias antes de expirar uma conta de proxy para a qual você definiu expiração.',
  },
  planRenewing: {
    subject: 'Seu plano {{plan}} renova em {{endsOn}}',
    intro:
      'O período do seu plano {{plan}} do ProxyHub termina em {{endsOn}}. Pague o próximo período antes disso e ele começa assim que este terminar; sem pagamento, o plano expira e seus dados pré-pagos continuam como estão.',
    action: 'Pagar o próximo período',
    outro: 'Para não renovar, cancele a renovação em Faturamento. O que resta deste período é seu até ele terminar.',
  },
  accountSuspended: {
    subject: 'Sua conta do ProxyHub está suspensa',
    intro: 'Sua conta do ProxyHub foi suspensa: o login, a API e seus proxies estão parados. Motivo: {{reason}}',
    action: 'Política de uso aceitável',
    outro: 'Se você acha que é um engano, responda a este e-mail ou fale com o suporte.',
  },
  statusConfirm: {
    subject: 'Confirme os e-mails de status do ProxyHub',
    intro: 'Confirme que este endereço deve receber um e-mail quando um país no painel de status do ProxyHub ficar instável e quando se recuperar.',
    action: 'Confirmar inscrição',
    outro: 'Este link expira em 24 horas. Se você não pediu isso, ignore este e-mail: nada será enviado.',
  },
  statusIncident: {
    subjectOpened: 'Status do ProxyHub: {{country}} instável',
    subjectClosed: 'Status do ProxyHub: {{country}} normalizado',
    opened: 'Status do ProxyHub: {{country}} está instável. As conexões de teste pelas saídas de {{country}} estão falhando.',
    closed: 'Status do ProxyHub: {{country}} se recuperou. As últimas {{window}} conexões de teste pelas saídas de {{country}} funcionaram.',
    action: 'Abrir a página de status',
    outro: 'Você recebe este e-mail porque se inscreveu nos e-mails de status do ProxyHub. Cancelar inscrição: {{url}}',
  },
} satisfies Translation<typeof en>;
